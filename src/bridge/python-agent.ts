import type { ModelRequest, ModelStreamPart } from '../types/backend.js';
import { ConfigError, ProviderError } from '../types/errors.js';
import type { ChatMessage, ToolDefinition } from '../types/messages.js';
import { emptyUsage } from '../types/usage.js';
import { isRecord } from '../util/guards.js';
import { PythonError, PythonHost, type PythonHostOptions } from './python-host.js';

/** Which Python agent to run, and how (see `python/massgen_bridge/agents.py`). */
export interface PythonAgentOptions {
  host: PythonHostOptions;
  /** `python`, `ag2`, `smolagents`, … or a user's adapter (`adapter`). */
  framework: string;
  /** The agent's module: `pkg.mod` (from `baseDir`, then sys.path) or a `.py` file. */
  module?: string;
  /** The module's attribute: a `step` function or an object with `step()` (default `step`). */
  export?: string;
  /** A user's Python adapter module (`create(config, module)`), registered under `framework`. */
  adapter?: string;
  /** Framework settings (AG2's `agent_config` / `group_config`), passed to Python as they are. */
  config: Record<string, unknown>;
  /** The config file's folder. */
  baseDir: string;
  /** Where the config names the agent, for errors (`agents[0].backend`). */
  where: string;
}

/** massgen's conversation in OpenAI's chat format, which Python agent frameworks speak. */
export function toOpenAIMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((m) => {
    if (m.role === 'tool')
      return { role: 'tool', tool_call_id: m.toolCallId, name: m.toolName, content: m.content };
    if (m.role !== 'assistant' || !m.toolCalls?.length) return { role: m.role, content: m.content };
    return {
      role: 'assistant',
      content: m.content,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
        },
      })),
    };
  });
}

const toOpenAITools = (tools: readonly ToolDefinition[]) =>
  tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));

/**
 * An agent written in Python, run in a Python host process of its own (a crash takes down only this
 * agent's step; the host is started again for the next one, once). One step is one `step` request:
 * the conversation and massgen's tools in, the agent's words and its calls of massgen's tools out.
 * A step that is abandoned (the agent's turn timed out, the run was cancelled) kills the process, since
 * Python cannot interrupt a hung agent from the outside.
 */
export class PythonAgent {
  private readonly host: PythonHost;
  private loadedIn = -1;

  constructor(private readonly options: PythonAgentOptions) {
    this.host = new PythonHost({
      label: `the Python agent host of ${options.where}`,
      stoppedNote: 'this agent cannot take more steps in this run',
      ...options.host,
    });
  }

  /**
   * Starts the host and loads the agent, so a missing framework, module or export is a config error
   * before the run starts.
   */
  async ready(): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      const { where } = this.options;
      if (error instanceof PythonError) {
        const line = error.message;
        throw new ConfigError(`${where}: ${line}`, {
          path: where,
          hint:
            error.code === 'missing_package'
              ? `install it for ${this.host.python} (or set python: to an interpreter that has it)`
              : `check framework:, module: and export: of ${where}`,
        });
      }
      throw new ConfigError(`${where}: ${error instanceof Error ? error.message : String(error)}`, {
        path: where,
        hint: 'python3 must be on PATH (or set python: in the config)',
      });
    }
  }

  private async load(signal?: AbortSignal): Promise<void> {
    if (this.host.running && this.loadedIn === this.host.generation) return;
    const { framework, module, adapter, config, baseDir } = this.options;
    await this.host.request(
      {
        op: 'agent',
        framework,
        base_dir: baseDir,
        config,
        ...(module === undefined ? {} : { module }),
        ...(this.options.export === undefined ? {} : { export: this.options.export }),
        ...(adapter === undefined ? {} : { adapter }),
      },
      signal,
    );
    this.loadedIn = this.host.generation;
  }

  /** One step, as a backend's stream. */
  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const label = `python:${this.options.framework}`;
    const onAbort = () => this.host.kill();
    request.signal.addEventListener('abort', onAbort, { once: true });
    let reply: Record<string, unknown>;
    try {
      await this.load(request.signal);
      reply = await this.host.request(
        { op: 'step', messages: toOpenAIMessages(request.messages), tools: toOpenAITools(request.tools) },
        request.signal,
      );
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      const message = error instanceof Error ? error.message : String(error);
      throw new ProviderError(label, `${this.options.where} (${label}): ${message}`, {
        cause: error,
        retryable: false,
      });
    } finally {
      request.signal.removeEventListener('abort', onAbort);
    }
    const content = typeof reply.content === 'string' ? reply.content : '';
    if (content) yield { type: 'text-delta', text: content };
    const calls = Array.isArray(reply.tool_calls) ? reply.tool_calls.filter(isRecord) : [];
    for (const call of calls)
      yield {
        type: 'tool-call',
        call: { id: String(call.id), name: String(call.name), arguments: call.arguments ?? {} },
      };
    const usage = emptyUsage();
    const reported = isRecord(reply.usage) ? reply.usage : {};
    usage.inputTokens = Number(reported.input_tokens ?? reported.prompt_tokens ?? 0) || 0;
    usage.outputTokens = Number(reported.output_tokens ?? reported.completion_tokens ?? 0) || 0;
    yield { type: 'finish', finishReason: calls.length > 0 ? 'tool-calls' : 'stop', usage };
  }

  /** Ends the host (at the end of the run). */
  close(): Promise<void> {
    return this.host.close();
  }
}
