/**
 * Permission rules through the built CLI, headless (`--automation`): a `deny` rule stops a write and
 * the model reads the rule in its tool error; an agent's own `allow` comes before the team's rules;
 * an `ask` waits for the file handshake in the log folder (answered here, or left to time out); a
 * call the fixed path check refuses never reaches the rules; and `permissions.jsonl` holds every
 * decision with who made it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import type { LedgerEntry } from '../../src/logging/permission-ledger.js';
import {
  agentEntry,
  logDirs,
  makeWorkdir,
  persona,
  readEvents,
  scriptedCalls,
  startCli,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();

const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

const ledgerOf = (logDir: string): LedgerEntry[] =>
  fs
    .readFileSync(path.join(logDir, 'permissions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry);

/** Answers a file-handshake question the way the docs say: written to another name, then renamed. */
function answer(file: string, value: unknown): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value));
  fs.renameSync(`${file}.tmp`, file);
}

describe('permission rules through the CLI', () => {
  it('deny stops a write naming the rule, allow and ask decide the rest, and the ledger has every decision', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(
      scriptedCalls([
        {
          name: 'write_file',
          arguments: { path: 'secrets/key.txt', content: 'key=sk-test-0123456789abcdef' },
        },
        { name: 'write_file', arguments: { path: 'notes/a.md', content: 'notes' } },
        { name: 'write_file', arguments: { path: 'other.txt', content: 'asked first' } },
        { name: 'read_file', arguments: { path: 'other.txt' } },
        { name: 'write_file', arguments: { path: '/etc/massgen-test.txt', content: 'x' } },
      ]),
    );
    writeConfig(cwd, {
      agents: [
        {
          ...agentEntry('a', fake.server.url, {
            system_message: persona('a'),
            backend: { cwd: 'ws_a', api_key: 'sk-test-0123456789abcdef' },
          }),
          permissions: [{ allow: 'write_file', path: 'notes/**' }],
        },
      ],
      permissions: [
        { deny: 'write_file', path: 'secrets/**', reason: 'secrets are off limits' },
        { ask: 'write_file' },
        { allow: 'read_file' },
      ],
    });
    const cli = startCli(['--config', 'config.yaml', '--automation', 'Write the files.'], {
      cwd,
      timeoutMs: 60_000,
    });
    // The `ask` waits for an answer file in the log folder: approve it.
    let logDir = '';
    await cli.until(() => {
      logDir = logDirs(cwd)[0] ?? '';
      const approvals = path.join(logDir, 'approvals');
      return (
        logDir !== '' &&
        fs.existsSync(approvals) &&
        fs.readdirSync(approvals).some((f) => f.endsWith('.request.json'))
      );
    }, 'the approval request file');
    const approvals = path.join(logDir, 'approvals');
    const requestName = fs.readdirSync(approvals).find((f) => f.endsWith('.request.json')) as string;
    const request = JSON.parse(fs.readFileSync(path.join(approvals, requestName), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(request).toMatchObject({
      agent: 'a',
      tool: 'write_file',
      arguments: { path: 'other.txt', content: 'asked first' },
      rule: { label: 'permissions[1]', text: 'ask write_file' },
      timeout_seconds: 60,
    });
    answer(path.join(approvals, requestName.replace('.request.json', '.answer.json')), { approve: true });
    const result = await cli.result;
    expect(result.stderr).toContain('waits for approval: write {"approve": true}');
    expect(result.code).toBe(0);

    // The model read the rule in its tool error; nothing was written where the rule denied it.
    const lastRequest = fake.server.requests.at(-1)?.body as FakeChatRequestBody;
    expect(toolResults(lastRequest)[0]).toBe(
      'The call to write_file was denied by permission rule permissions[0] (deny write_file path=secrets/**): secrets are off limits. Do not retry it unchanged; continue without it or try another approach.',
    );
    const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws_a');
    expect(fs.existsSync(path.join(workspace, 'secrets', 'key.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, 'notes', 'a.md'), 'utf8')).toBe('notes');
    expect(fs.readFileSync(path.join(workspace, 'other.txt'), 'utf8')).toBe('asked first');
    expect(toolResults(lastRequest)[4]).toMatch(/outside your workspace/);

    const ledger = ledgerOf(logDir);
    expect(fs.readFileSync(path.join(logDir, 'permissions.jsonl'), 'utf8')).not.toContain('0123456789abcdef');
    expect(ledger.map((e) => [e.tool, e.decision, e.by, e.rule?.label ?? null])).toEqual([
      ['write_file', 'deny', 'rule', 'permissions[0]'],
      ['write_file', 'allow', 'rule', 'agents[0].permissions[0]'],
      ['write_file', 'allow', 'file', 'permissions[1]'],
      ['read_file', 'allow', 'rule', 'permissions[2]'],
      ['write_file', 'deny', 'guard', null],
    ]);
    expect(ledger[0]).toMatchObject({
      agent: 'a',
      phase: 'presentation',
      // The run's scrubber masks the key the model tried to write, as in every event.
      arguments: { path: 'secrets/key.txt', content: 'key=***' },
      rule: { index: 0, scope: 'team', action: 'deny', text: 'deny write_file path=secrets/**' },
      reason: expect.stringContaining('secrets are off limits'),
    });
    expect(ledger[1]?.rule).toMatchObject({ scope: 'agent', index: 0 });
    expect(Date.parse(ledger[0]!.time)).toBeGreaterThan(0);
    // The same decisions are events, so every view (and a replay) shows them.
    const decided = readEvents(logDir).filter((e) => e.type === 'tool.permission.decided');
    expect(decided).toHaveLength(5);
  });

  it('an ask nobody answers is denied when the tool timeout passes, and the model is told why', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(
      scriptedCalls([{ name: 'write_file', arguments: { path: 'late.txt', content: 'x' } }]),
    );
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          system_message: persona('a'),
          backend: { cwd: 'ws_a', tool_timeout_seconds: 0.3 },
        }),
      ],
      permissions: [{ ask: 'write_file', reason: 'every write is checked' }],
    });
    const result = await startCli(['--config', 'config.yaml', '--automation', 'Write late.'], {
      cwd,
      timeoutMs: 60_000,
    }).result;
    expect(result.code).toBe(0);
    const [logDir] = logDirs(cwd);
    expect(ledgerOf(logDir!).map((e) => [e.decision, e.by, e.reason])).toEqual([
      ['deny', 'timeout', 'nobody answered within 0.3s (tool_timeout_seconds)'],
    ]);
    const lastRequest = fake.server.requests.at(-1)?.body as FakeChatRequestBody;
    expect(toolResults(lastRequest)[0]).toMatch(/not approved: nobody answered within 0\.3s/);
    expect(fs.existsSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'late.txt'))).toBe(false);
  });
});
