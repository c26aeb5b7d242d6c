import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunEvent, RunEventInput } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import { fixedClock } from '../testing/fixed-clock.js';
import { createRunLogWriter } from './log-writer.js';
import { agents, listFiles, newWriter, readJson, stamper, T0, tempDir } from './log-writer.test-support.js';
import { formatLogTimestamp } from './paths.js';
import type { StatusDocument } from './status-document.js';
import type { VoteDocument } from './vote-document.js';

const usage = (input: number, output: number, reasoning = 0, cached = 0): TokenUsage => ({
  inputTokens: input,
  outputTokens: output,
  reasoningTokens: reasoning,
  cachedInputTokens: cached,
});

function fullRun(): RunEvent[] {
  const ev = stamper();
  const events: RunEvent[] = [];
  const at = (ms: number, input: RunEventInput): void => void events.push(ev(ms, input));
  const vote = (ms: number, voter: string, counted: boolean, reason: string): void =>
    at(ms, {
      type: 'vote.cast',
      agentId: voter,
      targetAgentId: 'bob',
      targetAnonymousId: 'agent2',
      targetLabel: 'agent2.1',
      reason,
      counted,
    });

  const priced = agents.map((a, i) => ({
    ...a,
    price: i === 0 ? { inputPerMillion: 1, outputPerMillion: 2 } : null,
  }));
  at(0, { type: 'run.started', question: 'What is 2+2?', agents: priced, settings: {} });
  for (const a of agents)
    at(10, { type: 'agent.turn.started', agentId: a.agentId, turn: 1, visibleAnswers: [] });
  at(20, { type: 'agent.text.start', agentId: 'alice', phase: 'coordination', kind: 'text' });
  at(21, {
    type: 'agent.text.delta',
    agentId: 'alice',
    phase: 'coordination',
    kind: 'text',
    text: 'SECRETDELTA',
  });
  at(22, { type: 'agent.text.end', agentId: 'alice', phase: 'coordination', kind: 'text' });
  agents.forEach((a, i) =>
    at(900, {
      type: 'agent.step.finished',
      agentId: a.agentId,
      phase: 'coordination',
      step: 1,
      finishReason: 'tool-calls',
      usage: usage(100 * (i + 1), 10 * (i + 1), i, 5),
      // Only alice has a price (see fullRun's run.started).
      costUsd: i === 0 ? 0.00012 : 0,
    }),
  );
  at(1000, {
    type: 'answer.submitted',
    agentId: 'alice',
    anonymousId: 'agent1',
    label: 'agent1.1',
    content: 'four',
  });
  at(1000, { type: 'votes.reset', causedBy: 'agent1.1', clearedVoters: [] });
  at(1001, { type: 'agent.update.injected', agentId: 'bob', labels: ['agent1.1'] });
  at(1002, { type: 'agent.update.injected', agentId: 'carol', labels: ['agent1.1'] });
  at(1005, {
    type: 'agent.turn.finished',
    agentId: 'alice',
    turn: 1,
    outcome: 'answered',
    durationMs: 995,
    consecutiveFailures: 0,
  });
  at(2000, {
    type: 'answer.submitted',
    agentId: 'bob',
    anonymousId: 'agent2',
    label: 'agent2.1',
    content: '2+2 = 4',
  });
  at(2000, { type: 'votes.reset', causedBy: 'agent2.1', clearedVoters: [] });
  at(2010, {
    type: 'agent.turn.started',
    agentId: 'alice',
    turn: 2,
    visibleAnswers: ['agent1.1', 'agent2.1'],
  });
  vote(2500, 'carol', false, 'bob shows the working');
  at(2501, { type: 'agent.update.injected', agentId: 'carol', labels: ['agent2.1'] });
  vote(3000, 'alice', true, 'more complete');
  vote(3100, 'bob', true, 'mine is fine');
  vote(3200, 'carol', true, 'bob shows the working, and it is correct ' + 'very '.repeat(30));
  at(3300, {
    type: 'coordination.finished',
    reason: 'consensus',
    winnerId: 'bob',
    winnerLabel: 'agent2.1',
    tallies: { bob: 3 },
  });
  at(3400, { type: 'presentation.started', agentId: 'bob', mode: 'present' });
  at(3500, {
    type: 'agent.text.delta',
    agentId: 'bob',
    phase: 'presentation',
    kind: 'text',
    text: 'The answer',
  });
  at(3900, {
    type: 'agent.step.finished',
    agentId: 'bob',
    phase: 'presentation',
    step: 1,
    finishReason: 'stop',
    usage: usage(50, 20),
    costUsd: 0,
  });
  at(4000, {
    type: 'presentation.finished',
    agentId: 'bob',
    label: 'agent2.final',
    content: 'The answer is 4.',
    fallback: false,
  });
  at(4100, {
    type: 'run.finished',
    status: 'completed',
    exitCode: 0,
    winnerId: 'bob',
    finalAnswer: 'The answer is 4.',
    durationMs: 4100,
    usage: {},
    costUsd: {},
  });
  return events;
}

describe('createRunLogWriter', () => {
  it('writes the full layout for a three-agent consensus run', async () => {
    const root = path.join(tempDir(), 'massgen_logs');
    const writer = await newWriter(root);
    const events = fullRun();
    for (const event of events) writer.handle(event);
    await Promise.all([writer.flush(), writer.flush()]);
    await writer.flush();

    expect(writer.writeError).toBeNull();
    expect(path.isAbsolute(writer.logDir)).toBe(true);
    expect(path.dirname(writer.logDir)).toBe(path.resolve(root));
    expect(path.basename(writer.logDir)).toBe(`log_${formatLogTimestamp(new Date(T0))}`);
    expect(path.basename(writer.logDir)).toMatch(/^log_\d{8}_\d{6}_123000$/);
    expect(writer.statusPath).toBe(path.join(writer.logDir, 'status.json'));

    const answerStamp = (at: number): string => formatLogTimestamp(new Date(T0 + at));
    expect(listFiles(writer.logDir)).toEqual(
      [
        path.join(`agent_alice`, answerStamp(1000), 'answer.txt'),
        path.join(`agent_bob`, answerStamp(2000), 'answer.txt'),
        'coordination_events.json',
        'coordination_table.txt',
        'events.jsonl',
        'execution_metadata.yaml',
        path.join('final', 'bob', 'answer.txt'),
        'status.json',
        'vote.json',
      ].sort(),
    );
    const read = (rel: string): string => fs.readFileSync(path.join(writer.logDir, rel), 'utf8');
    expect(read(path.join('agent_alice', answerStamp(1000), 'answer.txt'))).toBe('four');
    expect(read(path.join('agent_bob', answerStamp(2000), 'answer.txt'))).toBe('2+2 = 4');
    expect(read(path.join('final', 'bob', 'answer.txt'))).toBe('The answer is 4.');
    expect(writer.finalAnswerPath()).toBe(path.join(writer.logDir, 'final', 'bob', 'answer.txt'));

    // Built from events.jsonl, and exactly what stringifying the events would give.
    expect(read('coordination_events.json')).toBe(`${JSON.stringify(events, null, 2)}\n`);

    const status = readJson<StatusDocument>(writer.statusPath);
    expect(status).toMatchObject({
      run_id: 'run-1',
      question: 'What is 2+2?',
      phase: 'finished',
      started_at: new Date(T0).toISOString(),
      elapsed_seconds: 4.1,
      coordination: { end_reason: 'consensus', winner: 'bob', winner_label: 'agent2.1', tallies: { bob: 3 } },
      final: { status: 'completed', exit_code: 0, answer_file: writer.finalAnswerPath(), error: null },
    });
    expect(Object.keys(status.agents)).toEqual(['alice', 'bob', 'carol']);
    expect(status.agents.alice).toEqual({
      anonymous_id: 'agent1',
      backend: 'openai',
      model: 'gpt-a',
      status: 'voted',
      answer_count: 1,
      latest_label: 'agent1.1',
      vote: { target: 'bob', label: 'agent2.1', reason: 'more complete' },
      consecutive_failures: 0,
      total_failures: 0,
      dropped_reason: null,
      usage: { input_tokens: 100, output_tokens: 10, reasoning_tokens: 0, cached_input_tokens: 5 },
      cost_usd: 0.00012,
    });
    expect(status.agents.bob).toMatchObject({
      status: 'done',
      answer_count: 1,
      usage: { input_tokens: 250 },
      cost_usd: null,
    });
    expect(status.totals.cost_usd).toBe(0.00012);
    expect(status.agents.carol).toMatchObject({
      answer_count: 0,
      latest_label: null,
      vote: { target: 'bob' },
    });
    expect(status.totals.usage).toEqual({
      input_tokens: 650,
      output_tokens: 80,
      reasoning_tokens: 3,
      cached_input_tokens: 15,
    });

    const votes = readJson<VoteDocument>(path.join(writer.logDir, 'vote.json'));
    expect(votes).toMatchObject({
      winner: 'bob',
      winner_label: 'agent2.1',
      reason: 'consensus',
      tallies: { bob: 3 },
    });
    expect(votes.votes).toHaveLength(4);
    expect(votes.votes[0]).toEqual({
      voter: 'carol',
      target: 'bob',
      target_anonymous_id: 'agent2',
      label: 'agent2.1',
      reason: 'bob shows the working',
      counted: false,
      timestamp: new Date(T0 + 2500).toISOString(),
    });
    expect(votes.votes.filter((v) => v.counted).map((v) => v.voter)).toEqual(['alice', 'bob', 'carol']);

    const table = read('coordination_table.txt');
    const header = table.split('\n').find((l) => l.includes('alice (agent1)')) ?? '';
    expect(header).toContain('bob (agent2)');
    expect(header).toContain('carol (agent3)');
    expect(table).toContain('ANSWER agent1.1');
    expect(table).toContain('ANSWER agent2.1');
    expect(table).toContain('VOTE agent2.1 (counted)');
    expect(table).toContain('stale');
    expect(table).toContain('FINAL agent2.final');
    expect(table).not.toContain('SECRETDELTA');

    const metadata = parse(read('execution_metadata.yaml')) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      run_id: 'run-1',
      question: 'What is 2+2?',
      started_at: new Date(T0).toISOString(),
      finished_at: new Date(T0 + 4100).toISOString(),
      duration_seconds: 4.1,
      status: 'completed',
      exit_code: 0,
      winner: 'bob',
      coordination_end_reason: 'consensus',
      config: { agents: [{ id: 'alice', backend: { type: 'openai', api_key: '***' } }] },
      versions: { massgen: '0.1.0', node: 'v20' },
      extra: { note: 'test' },
      token_usage: {
        agents: {
          carol: { input_tokens: 300, output_tokens: 30, reasoning_tokens: 2, cached_input_tokens: 5 },
        },
        total: { input_tokens: 650, output_tokens: 80 },
      },
      cost_usd: { agents: { alice: 0.00012, bob: null, carol: null }, total: 0.00012 },
    });

    expect(listFiles(path.resolve(root)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('writes status.json live, debounced, before any flush', async () => {
    const writer = await newWriter(tempDir());
    const ev = stamper();
    writer.handle(ev(0, { type: 'run.started', question: 'q', agents, settings: {} }));
    writer.handle(ev(1, { type: 'agent.turn.started', agentId: 'alice', turn: 1, visibleAnswers: [] }));
    writer.handle(
      ev(2, {
        type: 'answer.submitted',
        agentId: 'alice',
        anonymousId: 'agent1',
        label: 'agent1.1',
        content: 'x',
      }),
    );
    expect(fs.existsSync(writer.statusPath)).toBe(false);
    await expect.poll(() => fs.existsSync(writer.statusPath), { timeout: 2000, interval: 20 }).toBe(true);
    const status = readJson<StatusDocument>(writer.statusPath);
    expect(status.phase).toBe('coordinating');
    expect(status.agents.alice?.status).toBe('answered');
    expect(listFiles(writer.logDir)).toContain(
      path.join('agent_alice', formatLogTimestamp(new Date(T0 + 2)), 'answer.txt'),
    );
    // The full event log waits for flush.
    expect(fs.existsSync(path.join(writer.logDir, 'coordination_events.json'))).toBe(false);
    await writer.flush();
  });

  it('rewrites coordination_events.json with the events that arrived since the last flush', async () => {
    const writer = await newWriter(tempDir());
    const events = fullRun();
    const finished = events.at(-1) as RunEvent;
    const half = Math.floor(events.length / 2);
    for (const event of events.slice(0, half)) writer.handle(event);
    await writer.flush();
    const file = path.join(writer.logDir, 'coordination_events.json');
    expect(readJson(file)).toEqual(events.slice(0, half));
    // These arrive while a flush is queued, so are not in events.jsonl yet (its lines wait up to 200 ms):
    // the queued write must not count them as written without them.
    const queued = writer.flush();
    for (const event of events.slice(half, -1)) writer.handle(event);
    await queued;
    await writer.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(events.slice(0, -1), null, 2)}\n`);
    writer.handle(finished);
    await writer.flush();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(events, null, 2)}\n`);
    expect(writer.writeError).toBeNull();
  });

  it('stamps updated_at and the elapsed time from the clock it is given, not the wall clock', async () => {
    const clock = fixedClock(T0 + 7_500);
    const writer = await createRunLogWriter({
      rootDir: tempDir(),
      clock,
      metadata: { config: {}, versions: {}, extra: {} },
    });
    const ev = stamper();
    writer.handle(ev(0, { type: 'run.started', question: 'q', agents, settings: {} }));
    await writer.flush();
    const status = readJson<StatusDocument>(writer.statusPath);
    expect(status.updated_at).toBe(new Date(T0 + 7_500).toISOString());
    expect(status.elapsed_seconds).toBe(7.5);
    clock.advance(2_000);
    await writer.flush();
    expect(readJson<StatusDocument>(writer.statusPath).elapsed_seconds).toBe(9.5);
  });

  it('suffixes the folder name when it is taken', async () => {
    const root = tempDir();
    const startedAt = new Date(T0);
    const first = await newWriter(root, startedAt);
    const second = await newWriter(root, startedAt);
    const third = await newWriter(root, startedAt);
    expect(second.logDir).toBe(`${first.logDir}_2`);
    expect(third.logDir).toBe(`${first.logDir}_3`);
    expect(fs.statSync(third.logDir).isDirectory()).toBe(true);
  });
});
