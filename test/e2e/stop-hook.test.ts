/**
 * A `Stop` hook's `{"decision": "block", "reason": …}` (docs/hooks.md) through the built CLI, against
 * the scripted fake model: the run goes on with the reason as the user's follow-up, the next Stop gets
 * `stop_hook_active: true`, and the ledger records the block; a hook that always blocks cannot keep a
 * run going past MAX_STOP_CONTINUATIONS (the attack), and a block on a failed run is not obeyed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import { MAX_STOP_CONTINUATIONS } from '../../src/coordination/index.js';
import {
  agentEntry,
  automated,
  convergingHandler,
  logDirs,
  makeWorkdir,
  persona,
  readEvents,
  removeTempDirs,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
afterEach(removeTempDirs);

/** A Stop hook (a node script, unconfined) that keeps what it was told in seen.jsonl; `body` answers. */
function stopHook(dir: string, body: string): Record<string, unknown> {
  fs.writeFileSync(
    path.join(dir, 'stop.mjs'),
    `import fs from 'node:fs';\nlet s = '';\nprocess.stdin.on('data', (c) => (s += c)).on('end', () => {\n  const e = JSON.parse(s);\n  fs.appendFileSync('seen.jsonl', JSON.stringify(e) + '\\n');\n  ${body}\n});\n`,
  );
  return {
    Stop: [{ hooks: [{ type: 'command', command: `${process.execPath} stop.mjs`, sandbox: false }] }],
  };
}

const seenBy = (cwd: string) =>
  fs
    .readFileSync(path.join(cwd, 'seen.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const ledgerOf = (logDir: string) =>
  fs
    .readFileSync(path.join(logDir, 'permissions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const userText = (body: FakeChatRequestBody) =>
  (body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

/** A single agent that answers `answer N` at its Nth request. */
const numberedAnswers = () => {
  let n = 0;
  return () => ({ text: `answer ${++n}` });
};

describe('a Stop hook that blocks', () => {
  it('keeps the run going with its reason as the follow-up; the next Stop is told stop_hook_active', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(numberedAnswers());
    writeConfig(cwd, {
      agents: [agentEntry('a', fake.server.url, { system_message: persona('a') })],
      hooks: stopHook(
        cwd,
        `if (!e.stop_hook_active) console.log(JSON.stringify({ decision: 'block', reason: 'run the tests before you stop' }));`,
      ),
    });
    const result = await automated(cwd, 'Fix the bug.');
    expect(result.stderr).not.toMatch(/warning/);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('answer 2');

    // The model was asked again, with its answer and the hook's reason as the user's message.
    expect(fake.server.requests).toHaveLength(2);
    const again = userText(fake.server.requests[1]!.body as FakeChatRequestBody);
    expect(again).toContain('[Message from the user]');
    expect(again).toContain("The run's final answer was:\nanswer 1");
    expect(again).toContain('run the tests before you stop');

    const seen = seenBy(cwd);
    expect(seen.map((e) => [e.hook_event_name, e.stop_hook_active, e.last_assistant_message])).toEqual([
      ['Stop', false, 'answer 1'],
      ['Stop', true, 'answer 2'],
    ]);

    const [logDir] = logDirs(cwd);
    const events = readEvents(logDir!);
    expect(events.filter((e) => e.type === 'human.message')).toMatchObject([
      { text: 'run the tests before you stop', target: null, source: 'hook' },
    ]);
    expect(events.filter((e) => e.type === 'hook.stop.decided')).toMatchObject([
      { hook: 'hooks.Stop[0].hooks[0]', obeyed: true, continuation: 1 },
    ]);
    expect(ledgerOf(logDir!)).toMatchObject([
      {
        event: 'Stop',
        decision: 'block',
        obeyed: true,
        continuation: 1,
        by: 'hook',
        hook: 'hooks.Stop[0].hooks[0]',
        reason: 'run the tests before you stop',
      },
    ]);
  });

  it(`that always blocks (exit code 2) ends the run after ${MAX_STOP_CONTINUATIONS} continuations, with a warning`, async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(numberedAnswers());
    writeConfig(cwd, {
      agents: [agentEntry('a', fake.server.url, { system_message: persona('a') })],
      hooks: stopHook(cwd, `process.stderr.write('never done'); process.exit(2);`),
    });
    const result = await automated(cwd, 'Fix the bug.');
    expect(result.code).toBe(0);
    expect(fake.server.requests).toHaveLength(MAX_STOP_CONTINUATIONS + 1);
    expect(result.stdout).toContain(`answer ${MAX_STOP_CONTINUATIONS + 1}`);
    expect(result.stderr).toContain(
      `hooks.Stop[0].hooks[0] asked to keep going again (never done), but a run goes on at most ${MAX_STOP_CONTINUATIONS} times for its Stop hooks: it ends here`,
    );
    expect(seenBy(cwd).map((e) => e.stop_hook_active)).toEqual([false, true, true, true]);
    const ledger = ledgerOf(logDirs(cwd)[0]!);
    expect(ledger.map((e) => [e.obeyed, e.continuation])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
      [false, 3],
    ]);
  });

  it('sends a team back to work: every agent reads the reason, and the run finishes with a winner', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(convergingHandler);
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      hooks: stopHook(
        cwd,
        `if (!e.stop_hook_active) console.log(JSON.stringify({ decision: 'block', reason: 'check the units' }));`,
      ),
    });
    const result = await automated(cwd, 'What is 6 x 7?');
    expect(result.stderr).not.toMatch(/warning/);
    expect(result.code).toBe(0);
    const events = readEvents(logDirs(cwd)[0]!);
    const message = events.find((e) => e.type === 'human.message');
    expect(message).toMatchObject({ text: 'check the units', source: 'hook' });
    const delivered = events.filter((e) => e.type === 'human.message.delivered').map((e) => e.agentId);
    expect(new Set(delivered)).toEqual(new Set(['a', 'b']));
    expect(events.filter((e) => e.type === 'coordination.finished')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed', winnerId: 'a' });
    expect(seenBy(cwd).map((e) => e.stop_hook_active)).toEqual([false, true]);
  });

  it('on a failed run is not obeyed: the run ends, with a warning', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(() => ({ status: 400, body: { error: { message: 'bad request' } } }));
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { max_retries: 0 } }),
      ],
      hooks: stopHook(cwd, `console.log(JSON.stringify({ decision: 'block', reason: 'try harder' }));`),
    });
    const result = await automated(cwd, 'Fix the bug.');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'hooks.Stop[0].hooks[0] asked to keep going (try harder), but the run had failed: it ends here',
    );
    expect(seenBy(cwd)).toMatchObject([{ stop_hook_active: false, status: 'failed' }]);
    expect(ledgerOf(logDirs(cwd)[0]!)).toMatchObject([{ event: 'Stop', obeyed: false, continuation: 0 }]);
  });
});
