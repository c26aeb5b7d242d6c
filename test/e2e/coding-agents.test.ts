/**
 * Coding-agent harnesses as team members, the real harness packages pointed at one local server that
 * speaks each vendor's wire format and plays a scripted model: Claude Code (the Claude Agent SDK, over
 * Anthropic Messages) beside a chatcompletion agent reaches consensus through massgen's tools, served to
 * it over MCP; its config lives only in its workspace; a write outside the workspace is refused.
 */
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDialectServer } from '../../src/backends/backend.test-support.js';
import { runMassGen } from '../../src/app/run-massgen.js';
import {
  anthropicMessagesDialect,
  convergingTeam,
  geminiDialect,
  openAIChatDialect,
  openAIResponsesDialect,
  type FakeRequestView,
  type FakeResponse,
} from '../../src/testing/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import { makeWorkdir, persona } from './cli-harness.js';

const sandbox = sandboxSupport(process.env.PATH);
const noSandbox = sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`;

const fake = useDialectServer([
  openAIChatDialect,
  anthropicMessagesDialect,
  openAIResponsesDialect,
  geminiDialect,
]);
// Each agent answers in its own words (an identical answer would be refused as a duplicate): by the wire
// format its model speaks.
const ANSWERS: Readonly<Record<string, string>> = {
  'openai-chat': '6 x 7 = 42',
  'anthropic-messages': 'Six times seven is 42.',
  'openai-responses': '42, since 6 x 7 = 42.',
  gemini: 'The product is 42.',
};
const teamFor = (dialect: string) => convergingTeam({ answer: ANSWERS[dialect] ?? '42', final: 'It is 42.' });

/** The last message or input item of a request, as text (Anthropic `messages`, Responses `input`). */
function lastText(body: unknown): string {
  const { messages, input } = body as { messages?: unknown[]; input?: unknown[] };
  return JSON.stringify((messages ?? input ?? []).at(-1) ?? '');
}

/**
 * The converging team, for harnesses too: they see massgen's tools under an MCP prefix
 * (`mcp__massgen__vote`, Gemini CLI's `mcp_massgen_vote`), so the script reads the names without it and
 * answers with it.
 */
function script(outside: string) {
  let codexTried = false;
  let geminiTried = false;
  return (body: unknown, index: number, view: FakeRequestView): FakeResponse => {
    // A harness told its massgen turn is over stops.
    if (lastText(body).includes('Your turn is over')) return { text: 'Stopping.' };
    const workflow = view.toolNames.find((n) => /(^|_)(new_answer|vote)$/.test(n));
    const prefix = workflow ? workflow.replace(/(new_answer|vote)$/, '') : '';
    const names = view.toolNames.map((n) => (prefix && n.startsWith(prefix) ? n.slice(prefix.length) : n));
    // Claude Code first tries to write outside its workspace, once.
    if (
      view.dialect === 'anthropic-messages' &&
      names.includes('new_answer') &&
      !view.text.includes('massgen:')
    )
      return { toolCalls: [{ name: 'Write', arguments: { file_path: outside, content: 'escaped' } }] };
    // Gemini CLI first tries to write a file outside its workspace, once.
    if (view.dialect === 'gemini' && names.includes('new_answer') && !geminiTried) {
      geminiTried = true;
      return {
        toolCalls: [
          { name: 'write_file', arguments: { file_path: `${outside}.gemini`, content: 'escaped' } },
        ],
      };
    }
    // Codex first tries a shell command that writes outside its workspace, once.
    if (view.dialect === 'openai-responses' && names.includes('new_answer') && !codexTried) {
      codexTried = true;
      return { toolCalls: [{ name: 'exec_command', arguments: { cmd: `echo escaped > ${outside}.codex` } }] };
    }
    const reply = teamFor(view.dialect)(body, index, { ...view, toolNames: names });
    return 'toolCalls' in reply && reply.toolCalls
      ? { toolCalls: reply.toolCalls.map((c) => ({ ...c, name: `${prefix}${c.name}` })) }
      : reply;
  };
}

/** Runs the harness agents beside a chatcompletion agent, in a fresh project folder. */
async function runTeam(harnesses: Record<string, unknown>[]) {
  const cwd = makeWorkdir();
  const outside = path.join(cwd, 'outside.txt');
  fake.server.setHandler(script(outside));
  const events: RunEvent[] = [];
  const result = await runMassGen({
    config: {
      agents: [
        ...harnesses,
        {
          id: 'native',
          backend: { type: 'chatcompletion', model: 'native-model', base_url: `${fake.server.origin}/v1` },
          system_message: persona('native'),
        },
      ],
    },
    question: 'What is 6 times 7?',
    cwd,
    env: { PATH: process.env.PATH },
    logging: false,
    onEvent: (event) => events.push(event),
  });
  expect(result.error).toBeUndefined();
  expect(result.status).toBe('completed');
  expect(result.finalAnswer).toBe('It is 42.');
  expect(events.filter((e) => e.type === 'agent.dropped')).toEqual([]);
  expect(
    events.flatMap((e) => (e.type === 'agent.turn.finished' && e.outcome === 'failed' ? [e.error] : [])),
  ).toEqual([]);
  const tookPart = (id: string) =>
    events.some((e) => (e.type === 'answer.submitted' || e.type === 'vote.cast') && e.agentId === id);
  const homeOf = (ws: string, dir: string) =>
    path.join(cwd, '.massgen', 'workspaces', ws, '.harness-home', dir);
  return { result, events, outside, tookPart, homeOf };
}

describe('coding agents as team members', () => {
  it('Claude Code, Codex and a chatcompletion agent reach consensus; each harness stays in its workspace', async () => {
    const userClaude = path.join(os.homedir(), '.claude');
    const hadUserClaude = existsSync(userClaude);
    const { result, events, outside, tookPart, homeOf } = await runTeam([
      {
        id: 'claude',
        backend: {
          type: 'claude_code',
          model: 'claude-sonnet-4-5',
          base_url: `${fake.server.origin}/v1`,
          cwd: 'claude_ws',
          permission_mode: 'acceptEdits',
        },
      },
      {
        id: 'codex',
        backend: {
          type: 'codex',
          model: 'gpt-5-codex',
          base_url: `${fake.server.origin}/v1`,
          cwd: 'codex_ws',
        },
      },
    ]);

    expect(tookPart('claude')).toBe(true);
    expect(tookPart('codex')).toBe(true);
    // The write outside was refused by massgen's rule, shown as the harness's own failed tool call.
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(`${outside}.codex`)).toBe(false);
    const refused = events.find(
      (e) => e.type === 'tool.call.finished' && e.agentId === 'claude' && e.providerExecuted === true,
    );
    expect(JSON.stringify(refused)).toContain('massgen:');
    // Claude Code's own config and session live in the workspace, never in the user's home.
    expect(readdirSync(homeOf('claude_ws', '.claude')).length).toBeGreaterThan(0);
    expect(existsSync(userClaude)).toBe(hadUserClaude);
    // Claude Code saw massgen's tools as an MCP server.
    const claudeRequest = fake.server.requests.find((r) => r.path === '/v1/messages');
    expect(JSON.stringify(claudeRequest?.body)).toContain('mcp__massgen__new_answer');
    expect(result.usage.claude?.inputTokens).toBeGreaterThan(0);
    // Codex too: its home in its workspace, and its sandbox refused the write (its exec --json does not
    // report these commands as items: the model's next request carries the command's output).
    expect(readdirSync(homeOf('codex_ws', '.codex')).length).toBeGreaterThan(0);
    const output = fake.server.requests
      .filter((r) => r.path === '/v1/responses')
      .flatMap((r) => (r.body as { input?: { type?: string; output?: unknown }[] }).input ?? [])
      .find((item) => item.type === 'function_call_output');
    expect(String(output?.output)).toContain('Read-only file system');
    expect(result.usage.codex?.inputTokens).toBeGreaterThan(0);
  });

  it.skipIf(!sandbox.ok)(
    `Gemini CLI runs inside massgen's sandbox and reaches consensus with a chatcompletion agent${noSandbox}`,
    async () => {
      const userGemini = path.join(os.homedir(), '.gemini');
      const hadUserGemini = existsSync(userGemini);
      const { result, events, outside, tookPart, homeOf } = await runTeam([
        {
          id: 'gemini',
          backend: {
            type: 'gemini_cli',
            model: 'gemini-2.5-pro',
            base_url: `${fake.server.origin}/v1beta`,
            cwd: 'gemini_ws',
          },
        },
      ]);
      expect(tookPart('gemini')).toBe(true);
      expect(existsSync(`${outside}.gemini`)).toBe(false);
      // Refused by the CLI's own workspace check, inside a sandbox where that path is read-only anyway.
      const write = events.find(
        (e) => e.type === 'tool.call.finished' && e.agentId === 'gemini' && e.toolName === 'write_file',
      );
      expect(write).toMatchObject({ providerExecuted: true, isError: true });
      expect(readdirSync(homeOf('gemini_ws', '.gemini'))).toContain('settings.json');
      expect(existsSync(userGemini)).toBe(hadUserGemini);
      expect(result.usage.gemini?.inputTokens).toBeGreaterThan(0);
    },
  );
});
