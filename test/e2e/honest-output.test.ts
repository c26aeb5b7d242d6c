/**
 * What a run must not leave unsaid, through the built CLI against the fake OpenAI-compatible server: a
 * final answer cut off at the model's output limit (the plain view's warning line, the live and silent
 * views' stderr warning, `ANSWER_TRUNCATED` with --automation), a heartbeat while a turn prints nothing
 * in the plain view (never with --automation), and one cost wording when some models have no price.
 */
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  finalAnswerOf,
  linesOf,
  makeWorkdir,
  persona,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  waitFor,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
const CUT = 'The answer begins well and then stops in the middle of a';
const WARNING =
  "the final answer was cut off at the model's output limit (finishReason: length): raise the presenter's backend.max_tokens, or ask for a shorter answer";

/** A converging team whose winner's presentation stops at the output limit. */
function cutPresentation(body: FakeChatRequestBody): FakeResponse {
  if (toolNames(body).includes('new_answer')) return convergingHandler(body);
  return { text: CUT, finishReason: 'length', chunkSize: 9 };
}

function team(cwd: string): void {
  writeConfig(cwd, {
    agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
  });
}

describe('a final answer cut off at the output limit says so', () => {
  it('the plain view prints a warning line after the answer; --automation prints ANSWER_TRUNCATED: length', async () => {
    fake.server.setHandler(cutPresentation);
    const cwd = makeWorkdir();
    team(cwd);
    const plain = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd, timeoutMs: 60_000 });
    expect(plain.code).toBe(0);
    const out = linesOf(plain.stdout);
    const answer = out.indexOf(CUT);
    expect(answer).toBeGreaterThan(0);
    expect(out[answer + 1]).toBe(`⚠ ${WARNING}`);

    const automation = await runCli(['--config', 'config.yaml', '--automation', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(automation.code).toBe(0);
    expect(linesOf(automation.stdout)).toContain('ANSWER_TRUNCATED: length');
  });

  it('the silent view (display_type: silent) warns on stderr; an answer that ended on its own warns nowhere', async () => {
    fake.server.setHandler(cutPresentation);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      ui: { display_type: 'silent' },
    });
    const silent = await runCli(['--config', 'config.yaml', 'Q?'], { cwd, timeoutMs: 60_000 });
    expect(silent.code).toBe(0);
    expect(linesOf(silent.stdout)[0]).toBe(CUT);
    expect(linesOf(silent.stderr)).toContain(`massgen: warning: ${WARNING}`);

    fake.server.setHandler(convergingHandler);
    const whole = makeWorkdir();
    team(whole);
    const plain = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd: whole,
      timeoutMs: 60_000,
    });
    const automation = await runCli(['--config', 'config.yaml', '--automation', 'Q?'], {
      cwd: whole,
      timeoutMs: 60_000,
    });
    expect(plain.stdout).toContain(finalAnswerOf('a'));
    expect(plain.stdout + plain.stderr + automation.stdout + automation.stderr).not.toMatch(
      /cut off|ANSWER_TRUNCATED/,
    );
  });
});

describe('the plain view’s heartbeat', () => {
  it(
    'a turn that prints nothing for 10 s gets "[agent] thinking… (turn 1, N s)" lines; --automation never does',
    { timeout: 120_000 },
    async () => {
      // Each agent's model holds its reply until the test opens its gate.
      const gates = new Map<string, () => void>();
      const arrived = new Map<string, number>();
      fake.server.setHandler(async (body: FakeChatRequestBody) => {
        const id = agentOf(body) ?? '?';
        arrived.set(id, Date.now());
        await new Promise<void>((open) => gates.set(id, open));
        return { text: `answer from ${id}` };
      });
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        { agents: [agentEntry('slow', fake.server.url, { system_message: persona('slow') })] },
        'plain.yaml',
      );
      writeConfig(
        cwd,
        { agents: [agentEntry('quiet', fake.server.url, { system_message: persona('quiet') })] },
        'auto.yaml',
      );
      const plain = startCli(['--config', 'plain.yaml', '--no-display', 'Q?'], { cwd, timeoutMs: 100_000 });
      const automation = startCli(['--config', 'auto.yaml', '--automation', 'Q?'], {
        cwd,
        timeoutMs: 100_000,
      });

      await waitFor(
        () => /\[slow\] thinking… \(turn 1, \d+ s\)/.test(plain.stdout),
        60_000,
        'a heartbeat line from the held plain run',
        () => plain.stdout,
      );
      // The --automation run's turn has been held at least as long (plus a margin) before it may answer.
      await waitFor(() => gates.has('quiet'), 30_000, 'the --automation run’s model request');
      const heldSince = arrived.get('quiet') ?? Date.now();
      await waitFor(
        () => Date.now() - heldSince > 12_000,
        30_000,
        'the --automation turn held past a heartbeat interval',
      );
      gates.get('slow')?.();
      gates.get('quiet')?.();
      const [p, a] = await Promise.all([plain.result, automation.result]);
      expect(p.code).toBe(0);
      expect(a.code).toBe(0);
      const beats = linesOf(p.stdout).filter((l) => l.includes('thinking…'));
      expect(beats.length).toBeGreaterThan(0);
      for (const line of beats) expect(line).toMatch(/^\[slow\] thinking… \(turn 1, \d+ s\)$/);
      // The answer is whole: no heartbeat inside it.
      expect(linesOf(p.stdout)).toContain('answer from slow');
      expect(a.stdout + a.stderr).not.toContain('thinking');
    },
  );
});

describe('one cost wording: unknown is not zero', () => {
  it('a team where one model has a price and one has none: "$… + unknown" in total, "cost unknown" for the unpriced agent', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      pricing: { 'model-a': { input_per_million: 1000, output_per_million: 1000 } },
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    const out = linesOf(result.stdout);
    expect(out).toContainEqual(expect.stringMatching(/^ {2}a: \d+ in \/ \d+ out tokens — \$\d+\.\d{2,4}$/));
    expect(out).toContainEqual(expect.stringMatching(/^ {2}b: \d+ in \/ \d+ out tokens — cost unknown$/));
    expect(out).toContainEqual(
      expect.stringMatching(/^ {2}total: \d+ in \/ \d+ out tokens — \$\d+\.\d{2,4} \+ unknown$/),
    );
  });
});
