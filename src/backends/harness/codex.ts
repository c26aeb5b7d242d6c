import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BackendFactory, BackendSettings, HarnessSettings } from '../../types/backend.js';
import { isRecord } from '../../util/guards.js';
import type { HarnessEvent, HarnessTurn } from './harness-backend.js';
import { defineHarness, harnessEnv } from './harness-factory.js';
import { BRIDGE_SERVER_NAME } from './tool-bridge.js';

const TYPE = 'codex';
const PACKAGE = '@openai/codex-sdk';
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

interface ThreadLike {
  runStreamed(input: string, options: { signal: AbortSignal }): Promise<{ events: AsyncIterable<unknown> }>;
}
interface CodexLike {
  startThread(options: Record<string, unknown>): ThreadLike;
  resumeThread(id: string, options: Record<string, unknown>): ThreadLike;
}
interface Sdk {
  Codex: new (options: Record<string, unknown>) => CodexLike;
}

/** One Codex JSONL event as harness events; calls to massgen's MCP server are massgen's own. */
function* eventsOf(event: Record<string, unknown>): Generator<HarnessEvent> {
  if (event.type === 'thread.started' && typeof event.thread_id === 'string') {
    yield { type: 'session', id: event.thread_id };
    return;
  }
  if (event.type === 'turn.completed' && isRecord(event.usage)) {
    const u = event.usage;
    yield {
      type: 'usage',
      usage: {
        inputTokens: Number(u.input_tokens ?? 0),
        cachedInputTokens: Number(u.cached_input_tokens ?? 0),
        outputTokens: Number(u.output_tokens ?? 0),
        reasoningTokens: Number(u.reasoning_output_tokens ?? 0),
      },
    };
    return;
  }
  if (event.type === 'turn.failed') {
    const error = isRecord(event.error) ? String(event.error.message) : 'unknown error';
    throw new Error(`Codex stopped: ${error}`);
  }
  const item = isRecord(event.item) ? event.item : null;
  if (!item) return;
  const id = String(item.id);
  const started = event.type === 'item.started';
  const completed = event.type === 'item.completed';
  switch (item.type) {
    case 'agent_message':
      if (completed) yield { type: 'text', text: String(item.text ?? '') };
      break;
    case 'reasoning':
      if (completed) yield { type: 'reasoning', text: String(item.text ?? '') };
      break;
    case 'command_execution':
      if (started)
        yield { type: 'tool-call', callId: id, toolName: 'shell', input: { command: item.command } };
      if (completed)
        yield {
          type: 'tool-result',
          callId: id,
          toolName: 'shell',
          output: item.aggregated_output,
          isError: item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0),
        };
      break;
    case 'file_change':
      if (completed) {
        yield { type: 'tool-call', callId: id, toolName: 'apply_patch', input: { changes: item.changes } };
        yield {
          type: 'tool-result',
          callId: id,
          toolName: 'apply_patch',
          output: item.status,
          isError: item.status !== 'completed',
        };
      }
      break;
    case 'mcp_tool_call': {
      if (item.server === BRIDGE_SERVER_NAME) break;
      const name = `mcp__${String(item.server)}__${String(item.tool)}`;
      if (started) yield { type: 'tool-call', callId: id, toolName: name, input: item.arguments };
      if (completed)
        yield {
          type: 'tool-result',
          callId: id,
          toolName: name,
          output: item.result ?? item.error,
          isError: item.status === 'failed',
        };
      break;
    }
    case 'web_search':
      if (completed)
        yield { type: 'tool-call', callId: id, toolName: 'web_search', input: { query: item.query } };
      break;
    default:
      break;
  }
}

function codexRun(settings: BackendSettings, harness: HarnessSettings, sdk: Promise<Sdk>) {
  const home = path.join(harness.workspace, '.harness-home');
  return async function* run(turn: HarnessTurn): AsyncGenerator<HarnessEvent> {
    mkdirSync(path.join(home, '.codex'), { recursive: true });
    const { Codex } = await sdk;
    const custom = settings.baseUrl !== undefined && settings.baseUrl !== DEFAULT_BASE_URL;
    const codex = new Codex({
      // A loopback server needs no key, but Codex will not start without one.
      apiKey: settings.apiKey ?? 'massgen-loopback',
      env: harnessEnv(harness, home, {
        CODEX_HOME: path.join(home, '.codex'),
        ...(custom ? { MASSGEN_CODEX_API_KEY: settings.apiKey ?? 'massgen-loopback' } : {}),
      }),
      config: {
        // Writes only in the workspace: Codex would also open /tmp and $TMPDIR to its commands.
        sandbox_workspace_write: {
          exclude_slash_tmp: true,
          exclude_tmpdir_env_var: true,
          network_access: false,
        },
        // Another OpenAI-compatible server (base_url): a provider of its own, plain HTTPS streaming
        // (such servers rarely speak the Responses WebSocket transport Codex tries first).
        ...(custom
          ? {
              model_provider: 'massgen',
              model_providers: {
                massgen: {
                  name: 'massgen',
                  base_url: settings.baseUrl!,
                  env_key: 'MASSGEN_CODEX_API_KEY',
                  wire_api: 'responses',
                  supports_websockets: false,
                },
              },
            }
          : {}),
        ...(turn.tools
          ? {
              mcp_servers: {
                [BRIDGE_SERVER_NAME]: {
                  url: turn.tools.url,
                  http_headers: { ...turn.tools.headers },
                  // massgen may hold a call for as long as a whole step, and decides itself what runs.
                  tool_timeout_sec: 86_400,
                  default_tools_approval_mode: 'approve',
                },
              },
            }
          : {}),
        ...(harness.systemPrompt !== undefined || harness.appendSystemPrompt !== undefined
          ? {
              developer_instructions: [harness.systemPrompt, harness.appendSystemPrompt]
                .filter(Boolean)
                .join('\n\n'),
            }
          : {}),
      },
    });
    const options = {
      model: settings.model,
      workingDirectory: harness.workspace,
      skipGitRepoCheck: true,
      // Codex's own sandbox: writes only in the workspace, no network for its commands.
      sandboxMode: harness.permissionMode === 'bypassPermissions' ? 'danger-full-access' : 'workspace-write',
      approvalPolicy: 'never',
      networkAccessEnabled: false,
    };
    const thread = turn.resume ? codex.resumeThread(turn.resume, options) : codex.startThread(options);
    // Codex has no system prompt option for a thread: massgen's instructions lead the first message.
    const input = turn.resume ? turn.prompt : `${turn.system}\n\n${turn.prompt}`;
    try {
      const { events } = await thread.runStreamed(input, { signal: turn.signal });
      for await (const event of events) {
        if (isRecord(event)) yield* eventsOf(event);
      }
    } catch (error) {
      if (turn.signal.aborted) return;
      throw error;
    }
  };
}

/**
 * `type: codex`: OpenAI's Codex (the Codex SDK over `codex exec --json`) as a team member, in its
 * workspace with a `CODEX_HOME` of its own there (never `~/.codex`), its sandbox on the workspace, and
 * massgen's tools over MCP.
 */
export const codexBackend: BackendFactory = defineHarness<Sdk>({
  type: TYPE,
  description: "OpenAI's Codex (the Codex SDK) as a team member, working in its workspace",
  package: PACKAGE,
  defaultModel: 'gpt-5-codex',
  keyEnv: 'OPENAI_API_KEY',
  defaultBaseUrl: DEFAULT_BASE_URL,
  run: codexRun,
});
