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
  openAIChatDialect,
  openAIResponsesDialect,
  type FakeRequestView,
  type FakeResponse,
} from '../../src/testing/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { makeWorkdir, persona } from './cli-harness.js';

const fake = useDialectServer([openAIChatDialect, anthropicMessagesDialect, openAIResponsesDialect]);
// Each agent answers in its own words (an identical answer would be refused as a duplicate).
const team = convergingTeam({
  answer: (system) =>
    system.includes('Claude Code')
      ? 'Six times seven is 42.'
      : system.includes('Codex')
        ? '42, since 6 x 7 = 42.'
        : '6 x 7 = 42',
  final: 'It is 42.',
});

/** The last message or input item of a request, as text (Anthropic `messages`, Responses `input`). */
function lastText(body: unknown): string {
  const { messages, input } = body as { messages?: unknown[]; input?: unknown[] };
  return JSON.stringify((messages ?? input ?? []).at(-1) ?? '');
}

/**
 * The converging team, for harnesses too: they see massgen's tools under an MCP prefix
 * (`mcp__massgen__vote`), so the script reads the names without it and answers with it.
 */
function script(outside: string) {
  let codexTried = false;
  return (body: unknown, index: number, view: FakeRequestView): FakeResponse => {
    // A harness told its massgen turn is over stops.
    if (lastText(body).includes('Your turn is over')) return { text: 'Stopping.' };
    const workflow = view.toolNames.find((n) => /(^|__)(new_answer|vote)$/.test(n));
    const prefix = workflow ? workflow.replace(/(new_answer|vote)$/, '') : '';
    const names = view.toolNames.map((n) => (prefix && n.startsWith(prefix) ? n.slice(prefix.length) : n));
    // Claude Code first tries to write outside its workspace, once.
    if (
      view.dialect === 'anthropic-messages' &&
      names.includes('new_answer') &&
      !view.text.includes('massgen:')
    )
      return { toolCalls: [{ name: 'Write', arguments: { file_path: outside, content: 'escaped' } }] };
    // Codex first tries a shell command that writes outside its workspace, once.
    if (view.dialect === 'openai-responses' && names.includes('new_answer') && !codexTried) {
      codexTried = true;
      return { toolCalls: [{ name: 'exec_command', arguments: { cmd: `echo escaped > ${outside}.codex` } }] };
    }
    const reply = team(body, index, { ...view, toolNames: names });
    return 'toolCalls' in reply && reply.toolCalls
      ? { toolCalls: reply.toolCalls.map((c) => ({ ...c, name: `${prefix}${c.name}` })) }
      : reply;
  };
}

describe('coding agents as team members', () => {
  it('Claude Code, Codex and a chatcompletion agent reach consensus; each harness stays in its workspace', async () => {
    const cwd = makeWorkdir();
    const outside = path.join(cwd, 'outside.txt');
    const userClaude = path.join(os.homedir(), '.claude');
    const hadUserClaude = existsSync(userClaude);
    fake.server.setHandler(script(outside));
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: {
        agents: [
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
    expect(events.some((e) => e.type === 'agent.dropped')).toBe(false);
    expect(events.some((e) => e.type === 'agent.turn.finished' && e.outcome === 'failed')).toBe(false);
    expect(
      events.some((e) => (e.type === 'answer.submitted' || e.type === 'vote.cast') && e.agentId === 'claude'),
    ).toBe(true);
    // The write outside was refused by massgen's rule, shown as the harness's own failed tool call.
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(`${outside}.codex`)).toBe(false);
    const refused = events.find(
      (e) => e.type === 'tool.call.finished' && e.agentId === 'claude' && e.providerExecuted === true,
    );
    expect(JSON.stringify(refused)).toContain('massgen:');
    // Claude Code's own config and session live in the workspace, never in the user's home.
    const workspace = path.join(cwd, '.massgen', 'workspaces', 'claude_ws');
    expect(readdirSync(path.join(workspace, '.harness-home', '.claude')).length).toBeGreaterThan(0);
    expect(existsSync(userClaude)).toBe(hadUserClaude);
    // Claude Code saw massgen's tools as an MCP server.
    const claudeRequest = fake.server.requests.find((r) => r.path === '/v1/messages');
    expect(JSON.stringify(claudeRequest?.body)).toContain('mcp__massgen__new_answer');
    expect(result.usage.claude?.inputTokens).toBeGreaterThan(0);
    // Codex too: its home in its workspace, massgen's tools as MCP tools, its shell command refused.
    const codexHome = path.join(cwd, '.massgen', 'workspaces', 'codex_ws', '.harness-home', '.codex');
    expect(readdirSync(codexHome).length).toBeGreaterThan(0);
    expect(
      events.some((e) => (e.type === 'answer.submitted' || e.type === 'vote.cast') && e.agentId === 'codex'),
    ).toBe(true);
    // Codex's sandbox refused the write (its exec --json does not report these commands as items: the
    // model's next request carries the command's output).
    const output = fake.server.requests
      .filter((r) => r.path === '/v1/responses')
      .flatMap((r) => (r.body as { input?: { type?: string; output?: unknown }[] }).input ?? [])
      .find((item) => item.type === 'function_call_output');
    expect(String(output?.output)).toContain('Read-only file system');
    expect(result.usage.codex?.inputTokens).toBeGreaterThan(0);
  });
});
