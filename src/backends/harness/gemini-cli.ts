import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { BackendFactory, BackendSettings, HarnessSettings } from '../../types/backend.js';
import { trackChildProcess } from '../../util/child-reaper.js';
import { isRecord } from '../../util/guards.js';
import type { HarnessEvent, HarnessTurn } from './harness-backend.js';
import { defineHarness, harnessEnv } from './harness-factory.js';
import { BRIDGE_SERVER_NAME } from './tool-bridge.js';

const TYPE = 'gemini_cli';
const PACKAGE = '@google/gemini-cli';
/** Gemini CLI names MCP tools `mcp_<server>_<tool>`. */
const OURS = `mcp_${BRIDGE_SERVER_NAME}_`;
const APPROVAL: Readonly<Record<string, string>> = {
  default: 'yolo',
  acceptEdits: 'yolo',
  bypassPermissions: 'yolo',
  plan: 'plan',
};

let entry: string | null = null;

/** Where the Gemini CLI's entry script is (its package's `bin`), so it runs on this Node. Resolved once. */
function cliEntry(): string {
  if (entry !== null) return entry;
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${PACKAGE}/package.json`);
  const bin = (require(manifest) as { bin?: Record<string, string> }).bin?.gemini ?? 'bundle/gemini.js';
  return (entry = path.join(path.dirname(manifest), bin));
}

function* eventsOf(event: Record<string, unknown>, ours: Set<string>): Generator<HarnessEvent> {
  switch (event.type) {
    case 'init':
      if (typeof event.session_id === 'string') yield { type: 'session', id: event.session_id };
      break;
    case 'message':
      if (event.role === 'assistant' && typeof event.content === 'string')
        yield { type: 'text', text: event.content };
      break;
    case 'tool_use': {
      const name = String(event.tool_name);
      const id = String(event.tool_id);
      if (name.startsWith(OURS)) ours.add(id);
      else yield { type: 'tool-call', callId: id, toolName: name, input: event.parameters };
      break;
    }
    case 'tool_result': {
      const id = String(event.tool_id);
      if (!ours.has(id))
        yield {
          type: 'tool-result',
          callId: id,
          toolName: '',
          output: event.output ?? event.error,
          isError: event.status !== 'success',
        };
      break;
    }
    case 'result': {
      const stats = isRecord(event.stats) ? event.stats : {};
      yield {
        type: 'usage',
        usage: {
          inputTokens: Number(stats.input_tokens ?? 0),
          outputTokens: Number(stats.output_tokens ?? 0),
          cachedInputTokens: Number(stats.cached ?? 0),
        },
      };
      if (event.status !== 'success') {
        const error = isRecord(event.error) ? String(event.error.message) : String(event.status);
        throw new Error(`Gemini CLI stopped: ${error}`);
      }
      break;
    }
    default:
      break;
  }
}

function geminiRun(settings: BackendSettings, harness: HarnessSettings) {
  const home = path.join(harness.workspace, '.harness-home');
  return async function* run(turn: HarnessTurn): AsyncGenerator<HarnessEvent> {
    mkdirSync(path.join(home, '.gemini'), { recursive: true });
    // Its settings live in its own home: the API-key login, and massgen's tools as a trusted MCP server.
    writeFileSync(
      path.join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        mcpServers: turn.tools
          ? {
              [BRIDGE_SERVER_NAME]: {
                httpUrl: turn.tools.url,
                headers: turn.tools.headers,
                timeout: 86_400_000,
                trust: true,
              },
            }
          : {},
      }),
    );
    const system = [harness.systemPrompt, turn.system, harness.appendSystemPrompt]
      .filter(Boolean)
      .join('\n\n');
    const prompt = turn.resume ? turn.prompt : `${system}\n\n${turn.prompt}`;
    const args = [
      cliEntry(),
      '--prompt',
      prompt,
      '--output-format',
      'stream-json',
      '--model',
      settings.model,
      '--approval-mode',
      APPROVAL[harness.permissionMode ?? 'default'] ?? 'yolo',
      '--skip-trust',
      ...(turn.resume ? ['--resume', turn.resume] : []),
    ];
    // Inside massgen's OS sandbox where there is one: the workspace writable, the machine read-only.
    const argv = [
      ...(harness.sandboxed?.(turn.phase, [path.dirname(cliEntry()), path.dirname(process.execPath)]) ?? []),
      process.execPath,
      ...args,
    ];
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: harness.workspace,
      env: harnessEnv(harness, home, {
        GEMINI_API_KEY: settings.apiKey ?? 'massgen-loopback',
        GOOGLE_GEMINI_BASE_URL: settings.baseUrl?.replace(/\/v1(beta)?\/?$/, ''),
        GEMINI_CLI_NO_RELAUNCH: 'true',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const untrack = child.pid === undefined ? () => {} : trackChildProcess(child.pid);
    const stop = () => child.kill('SIGTERM');
    turn.signal.addEventListener('abort', stop, { once: true });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const ours = new Set<string>();
    try {
      for await (const line of createInterface({ input: child.stdout! })) {
        let event: unknown;
        try {
          event = JSON.parse(line);
        } catch {
          continue; // Not an event (the CLI's own notices).
        }
        if (isRecord(event)) yield* eventsOf(event, ours);
      }
      const code = await exited;
      if (code !== 0 && !turn.signal.aborted) {
        const tail = stderr.trim().split('\n').slice(-3).join(' | ');
        throw new Error(`Gemini CLI exited with code ${code}${tail ? `: ${tail}` : ''}`);
      }
    } finally {
      turn.signal.removeEventListener('abort', stop);
      if (child.exitCode === null) child.kill('SIGKILL');
      untrack();
    }
  };
}

/**
 * `type: gemini_cli`: Google's Gemini CLI (headless, `--output-format stream-json`) as a team member, in
 * its workspace with a home of its own there (never `~/.gemini`), run inside massgen's OS sandbox, with
 * massgen's tools as a trusted MCP server.
 */
export const geminiCliBackend: BackendFactory = defineHarness<unknown>({
  type: TYPE,
  description: "Google's Gemini CLI as a team member, working in its workspace (in massgen's sandbox)",
  package: PACKAGE,
  defaultModel: 'gemini-2.5-pro',
  keyEnv: 'GEMINI_API_KEY',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  // The package is a CLI, not a library: found, never imported.
  load: async () => {
    cliEntry();
    return undefined;
  },
  run: (settings, harness) => geminiRun(settings, harness),
});
