import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BackendFactory, BackendSettings, HarnessSettings } from '../../types/backend.js';
import { findExecutable } from '../../util/find-executable.js';
import { isRecord } from '../../util/guards.js';
import type { HarnessEvent, HarnessTurn } from './harness-backend.js';
import { defineHarness, harnessEnv } from './harness-factory.js';
import { BRIDGE_SERVER_NAME } from './tool-bridge.js';

const TYPE = 'claude_code';
const PACKAGE = '@anthropic-ai/claude-agent-sdk';
/** Claude Code's tools that write files, and the input key holding the path. */
const WRITERS: Readonly<Record<string, string>> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

/**
 * Why Claude Code's own OS sandbox (bubblewrap and socat on Linux) cannot run here, or null when it can.
 * Without it Claude Code's Bash tool is switched off: massgen will not let it run commands unconfined.
 */
export function claudeSandboxMissing(pathValue: string | undefined): string | null {
  if (process.platform !== 'linux') return null; // Seatbelt on macOS needs nothing installed.
  const missing = ['bwrap', 'socat'].filter((name) => findExecutable(name, pathValue) === null);
  return missing.length === 0
    ? null
    : `Claude Code's sandbox needs ${missing.join(' and ')} (apt install bubblewrap socat); until then its Bash tool is off`;
}

type Query = AsyncIterable<Record<string, unknown>>;
interface Sdk {
  query(args: { prompt: string; options: Record<string, unknown> }): Query;
}

/**
 * Claude Code's permission check: file writes must pass massgen's path rules (the workspace; write
 * context paths only while presenting); everything else follows `permission_mode` and the allow lists.
 * Bash is confined by Claude Code's own sandbox settings (below), not here.
 */
const canUseTool =
  (harness: HarnessSettings, phase: HarnessTurn['phase']) =>
  async (name: string, input: Record<string, unknown>) => {
    const key = WRITERS[name];
    const target = key ? input[key] : undefined;
    if (typeof target === 'string') {
      const verdict = await harness.checkWrite(path.resolve(harness.workspace, target), phase);
      if (!verdict.allowed) return { behavior: 'deny' as const, message: `massgen: ${verdict.reason}` };
    }
    return { behavior: 'allow' as const, updatedInput: input };
  };

function systemPrompt(harness: HarnessSettings, system: string) {
  if (harness.systemPrompt !== undefined)
    return [harness.systemPrompt, system, harness.appendSystemPrompt].filter(Boolean).join('\n\n');
  const append = [system, harness.appendSystemPrompt].filter(Boolean).join('\n\n');
  return { type: 'preset', preset: 'claude_code', ...(append ? { append } : {}) };
}

function* eventsOf(
  message: Record<string, unknown>,
  seen: Set<string>,
  ours: Set<string>,
): Generator<HarnessEvent> {
  if (message.type === 'system' && message.subtype === 'init' && typeof message.session_id === 'string') {
    yield { type: 'session', id: message.session_id };
    return;
  }
  const body = isRecord(message.message) ? message.message : {};
  const blocks = Array.isArray(body.content) ? body.content.filter(isRecord) : [];
  if (message.type === 'assistant') {
    const id = String(body.id ?? '');
    const usage = isRecord(body.usage) ? body.usage : undefined;
    // A streamed message arrives block by block under one id, each repeating its usage: count it once.
    if (usage && !seen.has(id)) {
      seen.add(id);
      yield {
        type: 'usage',
        usage: {
          inputTokens: Number(usage.input_tokens ?? 0) + Number(usage.cache_creation_input_tokens ?? 0),
          cachedInputTokens: Number(usage.cache_read_input_tokens ?? 0),
          outputTokens: Number(usage.output_tokens ?? 0),
        },
      };
    }
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') yield { type: 'text', text: block.text };
      else if (block.type === 'thinking' && typeof block.thinking === 'string')
        yield { type: 'reasoning', text: block.thinking };
      else if (block.type === 'tool_use') {
        const name = String(block.name);
        if (name.startsWith(`mcp__${BRIDGE_SERVER_NAME}__`)) {
          ours.add(String(block.id));
          continue;
        }
        yield { type: 'tool-call', callId: String(block.id), toolName: name, input: block.input };
      }
    }
  } else if (message.type === 'user') {
    for (const block of blocks) {
      if (block.type !== 'tool_result' || ours.has(String(block.tool_use_id))) continue;
      yield {
        type: 'tool-result',
        callId: String(block.tool_use_id),
        toolName: '',
        output: block.content,
        isError: block.is_error === true,
      };
    }
  } else if (message.type === 'result' && message.subtype !== 'success') {
    const errors = Array.isArray(message.errors) ? message.errors.join('; ') : String(message.subtype);
    throw new Error(`Claude Code stopped: ${errors}`);
  }
}

function claudeRun(settings: BackendSettings, harness: HarnessSettings, sdk: Promise<Sdk>) {
  const home = path.join(harness.workspace, '.harness-home');
  const sandboxed = claudeSandboxMissing(harness.env.PATH) === null;
  const disallowed = [...(harness.disallowedTools ?? []), ...(sandboxed ? [] : ['Bash'])];
  return async function* run(turn: HarnessTurn): AsyncGenerator<HarnessEvent> {
    mkdirSync(path.join(home, '.claude'), { recursive: true });
    const controller = new AbortController();
    const stop = () => controller.abort();
    turn.signal.addEventListener('abort', stop, { once: true });
    let stderr = '';
    const query = (await sdk).query({
      prompt: turn.prompt,
      options: {
        cwd: harness.workspace,
        model: settings.model,
        abortController: controller,
        env: harnessEnv(harness, home, {
          CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
          // A loopback server needs no key, but Claude Code will not start without one.
          ANTHROPIC_API_KEY: settings.apiKey ?? 'massgen-loopback',
          ANTHROPIC_BASE_URL: settings.baseUrl?.replace(/\/v1\/?$/, ''),
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          // massgen's tools must be in the model's tool list, not behind Claude Code's deferred tool search.
          ENABLE_TOOL_SEARCH: 'false',
        }),
        // No user, project or local settings: the harness sees only what massgen gives it.
        settingSources: [],
        systemPrompt: systemPrompt(harness, turn.system),
        mcpServers: turn.tools
          ? {
              [BRIDGE_SERVER_NAME]: {
                type: 'http',
                url: turn.tools.url,
                headers: turn.tools.headers,
                timeout: 86_400_000,
              },
            }
          : {},
        ...(turn.resume ? { resume: turn.resume } : {}),
        permissionMode: harness.permissionMode ?? 'default',
        ...(harness.allowedTools ? { allowedTools: [...harness.allowedTools] } : {}),
        ...(disallowed.length > 0 ? { disallowedTools: disallowed } : {}),
        ...(harness.maxThinkingTokens ? { maxThinkingTokens: harness.maxThinkingTokens } : {}),
        // Bash runs in Claude Code's OS sandbox (bubblewrap on Linux): writes only in the workspace.
        sandbox: sandboxed
          ? { enabled: true, autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: false }
          : { enabled: false },
        canUseTool: canUseTool(harness, turn.phase),
        stderr: (text: string) => {
          stderr = (stderr + text).slice(-2000);
        },
      },
    });
    const seen = new Set<string>();
    const ours = new Set<string>();
    try {
      for await (const message of query) yield* eventsOf(message, seen, ours);
    } catch (error) {
      if (turn.signal.aborted) return;
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      throw new Error(`${error instanceof Error ? error.message : String(error)}${tail ? ` (${tail})` : ''}`);
    } finally {
      turn.signal.removeEventListener('abort', stop);
      // The Claude Code process waits for more input after its result: end it with the turn.
      controller.abort();
    }
  };
}

/**
 * `type: claude_code`: Claude Code (the Claude Agent SDK) as a team member, in its workspace with a home
 * of its own there (never `~/.claude`), MassGen's `claude_code` keys, and massgen's tools over MCP.
 */
export const claudeCodeBackend: BackendFactory = defineHarness<Sdk>({
  type: TYPE,
  description: 'Claude Code (the Claude Agent SDK) as a team member, working in its workspace',
  package: PACKAGE,
  defaultModel: 'claude-sonnet-4-5',
  keyEnv: 'ANTHROPIC_API_KEY',
  defaultBaseUrl: 'https://api.anthropic.com/v1',
  run: claudeRun,
});
