/**
 * massgen registered as an MCP server in real coding agents — the Claude Agent SDK (Claude Code), the
 * Codex SDK and Gemini CLI, each as a user registers it — whose model (the local scripted server, in
 * each vendor's wire format) calls massgen's `run` and then `result`. The team behind it is two
 * chatcompletion agents on the same scripted server.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDialectServer } from '../../src/backends/backend.test-support.js';
import {
  anthropicMessagesDialect,
  convergingTeam,
  geminiDialect,
  openAIChatDialect,
  openAIResponsesDialect,
  type FakeRequestView,
  type FakeResponse,
} from '../../src/testing/index.js';
import { runProcess } from '../support/run-process.js';
import { CLI_BIN, makeWorkdir, persona, writeConfig } from './cli-harness.js';

const fake = useDialectServer([
  openAIChatDialect,
  anthropicMessagesDialect,
  openAIResponsesDialect,
  geminiDialect,
]);
const FINAL = 'The team says 6 x 7 = 42.';
const team = convergingTeam({
  answer: (system) => `42, says ${/agent called (\w+)/.exec(system)?.[1] ?? '?'}`,
  final: FINAL,
});

/**
 * The coding agent's model: call massgen's `run`, then `result` with the run id, then report the team's
 * answer. The tool names carry each client's MCP prefix (`mcp__massgen__run`, `mcp_massgen_run`, …).
 */
function script(body: unknown, index: number, view: FakeRequestView): FakeResponse {
  if (view.dialect === 'openai-chat') return team(body, index, view);
  const run = view.toolNames.find((n) => /massgen_+run$/.test(n));
  if (!run) return { text: 'ok' }; // a client's side request (a title, a summary)
  // The result's JSON, as each client shows it to its model (quoted again by some).
  if (view.text.includes(FINAL) && /final_answer/.test(view.text))
    return { text: `massgen answered: ${FINAL}` };
  const runId = /mg_[0-9a-f]{12}/.exec(view.text)?.[0];
  if (runId)
    return {
      toolCalls: [{ name: run.replace(/run$/, 'result'), arguments: { run_id: runId, timeout_seconds: 60 } }],
    };
  return { toolCalls: [{ name: run, arguments: { question: 'What is 6 times 7?', config: 'team.yaml' } }] };
}

/** A project folder with the team config, and the command line that registers massgen in it. */
function project() {
  const cwd = makeWorkdir();
  writeConfig(
    cwd,
    {
      agents: ['alpha', 'beta'].map((id) => ({
        id,
        backend: { type: 'chatcompletion', model: `model-${id}`, base_url: `${fake.server.origin}/v1` },
        system_message: persona(id),
      })),
    },
    'team.yaml',
  );
  fake.server.setHandler(script);
  // As a user registers it (`npx massgen mcp`), with the repository's built CLI in place of npx.
  const massgen = { command: process.execPath, args: [CLI_BIN, 'mcp'] };
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd };
  return { cwd, massgen, env };
}

/** Every team request got a scripted answer and the run's log folder holds the final answer. */
function expectTeamRan(cwd: string) {
  const teamRequests = fake.server.requests.filter((r) => r.dialect === 'openai-chat');
  expect(teamRequests.length).toBeGreaterThanOrEqual(4);
  const logs = fs.readdirSync(path.join(cwd, '.massgen', 'massgen_logs'));
  expect(logs).toHaveLength(1);
}

const require = createRequire(import.meta.url);
/** Whether a package is installed here (resolvable by name: some export no package.json). */
const installed = (name: string) => {
  try {
    require.resolve(name);
    return true;
  } catch {
    return fs.existsSync(path.join(process.cwd(), 'node_modules', name, 'package.json'));
  }
};

describe('massgen as an MCP server in coding agents', () => {
  it('Claude Code (the Claude Agent SDK) calls run and result and reports the team answer', async () => {
    const { cwd, massgen, env } = project();
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const home = path.join(cwd, '.claude-home');
    fs.mkdirSync(home, { recursive: true });
    let answer = '';
    for await (const message of query({
      prompt: 'Ask the massgen team what 6 times 7 is.',
      options: {
        cwd,
        model: 'claude-sonnet-4-5',
        settingSources: [],
        mcpServers: { massgen: { type: 'stdio', ...massgen, env } },
        allowedTools: ['mcp__massgen__run', 'mcp__massgen__result'],
        env: {
          ...env,
          CLAUDE_CONFIG_DIR: home,
          ANTHROPIC_API_KEY: 'massgen-loopback',
          ANTHROPIC_BASE_URL: fake.server.origin,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          ENABLE_TOOL_SEARCH: 'false',
          MCP_TOOL_TIMEOUT: '120000',
          // Headless Claude Code connects MCP servers in the background by default: wait for massgen
          // before the first model call, so its tools are listed from the start.
          MCP_CONNECTION_NONBLOCKING: 'false',
        },
      },
    })) {
      const m = message as { type: string; subtype?: string; result?: string };
      if (m.type === 'result') {
        expect(m.subtype).toBe('success');
        answer = m.result ?? '';
      }
    }
    const claude = fake.server.requests.filter((r) => r.dialect === 'anthropic-messages');
    // On failure, what Claude Code asked: the tools it offered and how each conversation ended.
    const asked = claude.map(
      (r) => `${r.view?.model} [${r.view?.toolNames.length} tools] …${r.view?.text.slice(-160)}`,
    );
    expect(answer, asked.join('\n')).toBe(`massgen answered: ${FINAL}`);
    expect(JSON.stringify(claude.map((r) => r.body))).toContain('mcp__massgen__result');
    expectTeamRan(cwd);
  });

  it.skipIf(!installed('@openai/codex-sdk'))(
    'Codex (the Codex SDK) with massgen in its config.toml mcp_servers calls run and result',
    async () => {
      const { cwd, massgen, env } = project();
      const { Codex } = await import('@openai/codex-sdk');
      const codexHome = path.join(cwd, '.codex-home');
      fs.mkdirSync(codexHome, { recursive: true });
      const codex = new Codex({
        apiKey: 'massgen-loopback',
        env: { ...env, CODEX_HOME: codexHome, MASSGEN_CODEX_API_KEY: 'massgen-loopback' },
        config: {
          model_provider: 'scripted',
          model_providers: {
            scripted: {
              name: 'scripted',
              base_url: `${fake.server.origin}/v1`,
              env_key: 'MASSGEN_CODEX_API_KEY',
              wire_api: 'responses',
              supports_websockets: false,
            },
          },
          // The table a user writes in ~/.codex/config.toml as [mcp_servers.massgen]; `required` makes
          // Codex wait for the server before the first turn (else its tools may not be listed yet).
          mcp_servers: {
            massgen: {
              ...massgen,
              env,
              required: true,
              startup_timeout_sec: 60,
              tool_timeout_sec: 120,
              default_tools_approval_mode: 'approve',
            },
          },
        },
      });
      const thread = codex.startThread({
        model: 'gpt-5-codex',
        workingDirectory: cwd,
        skipGitRepoCheck: true,
        approvalPolicy: 'never',
        sandboxMode: 'workspace-write',
      });
      const turn = await thread.run('Ask the massgen team what 6 times 7 is.');
      expect(turn.finalResponse).toBe(`massgen answered: ${FINAL}`);
      expectTeamRan(cwd);
    },
  );

  it.skipIf(!installed('@google/gemini-cli'))(
    'Gemini CLI with massgen in its settings.json mcpServers calls run and result',
    async () => {
      const { cwd, massgen, env } = project();
      const manifest = require.resolve('@google/gemini-cli/package.json');
      const bin = (require(manifest) as { bin?: Record<string, string> }).bin?.gemini ?? 'bundle/gemini.js';
      fs.mkdirSync(path.join(cwd, '.gemini'), { recursive: true });
      // As `gemini mcp add massgen npx massgen mcp` writes it, trusted so no confirmation is asked.
      fs.writeFileSync(
        path.join(cwd, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          mcpServers: { massgen: { ...massgen, env, cwd, trust: true, timeout: 120_000 } },
        }),
      );
      const gemini = await runProcess(
        process.execPath,
        [
          path.join(path.dirname(manifest), bin),
          '--prompt',
          'Ask the massgen team what 6 times 7 is.',
          '--output-format',
          'json',
          '--model',
          'gemini-2.5-pro',
          '--approval-mode',
          'yolo',
          '--skip-trust',
        ],
        {
          cwd,
          env: {
            ...env,
            GEMINI_API_KEY: 'massgen-loopback',
            GOOGLE_GEMINI_BASE_URL: fake.server.origin,
            GEMINI_CLI_NO_RELAUNCH: 'true',
          },
          timeoutMs: 150_000,
        },
      );
      if (gemini.code !== 0) throw new Error(`gemini exited ${gemini.code}: ${gemini.stderr.slice(-2000)}`);
      const output = gemini.stdout;
      expect(output).toContain(`massgen answered: ${FINAL}`);
      expectTeamRan(cwd);
    },
  );
});
