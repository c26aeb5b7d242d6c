/**
 * The library surface (`runMassGen`, `prepareRun`) end to end: real backends against the fake
 * OpenAI-compatible server, and ScriptedBackends with no HTTP at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRun, runMassGen, type RunEvent } from '../../src/index.js';
import { ScriptedBackend, type ScriptStep } from '../../src/testing/index.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  logRoot,
  makeWorkdir,
  persona,
  readEvents,
  readStatus,
  useFakeServer,
} from './cli-harness.js';

const fake = useFakeServer();

const QUESTION = 'What is 6 times 7?';

function teamConfig(ids: readonly string[]): Record<string, unknown> {
  return {
    agents: ids.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    timeout_settings: { agent_turn_timeout_seconds: 10, orchestrator_timeout_seconds: 20 },
  };
}

describe('runMassGen', () => {
  it('runs a config object against the fake server and resolves with the result', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    const events: RunEvent[] = [];

    const result = await runMassGen({
      config: teamConfig(['alpha', 'beta']),
      question: QUESTION,
      cwd,
      env: {},
      onEvent: (event) => events.push(event),
    });

    expect(result).toMatchObject({
      status: 'completed',
      exitCode: 0,
      question: QUESTION,
      winnerId: 'alpha',
      finalAnswer: finalAnswerOf('alpha'),
    });
    expect(result.error).toBeUndefined();
    expect(result.logDir).not.toBeNull();
    const logDir = result.logDir as string;
    expect(path.dirname(logDir)).toBe(logRoot(cwd));
    expect(fs.statSync(logDir).isDirectory()).toBe(true);
    expect(result.answerFile).toBe(path.join(logDir, 'final', 'alpha', 'answer.txt'));
    expect(fs.readFileSync(result.answerFile as string, 'utf8')).toBe(finalAnswerOf('alpha'));
    expect(result.usage.alpha?.inputTokens).toBeGreaterThan(0);

    // onEvent saw every event, in order, exactly as logged.
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', runId: result.runId });
    expect(readEvents(logDir).map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(readStatus(logDir).final.status).toBe('completed');
  });
});

describe('prepareRun', () => {
  it('exposes the log folder before streaming; stream() yields events ending with run.finished', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();

    const run = await prepareRun({ config: teamConfig(['alpha', 'beta']), question: QUESTION, cwd, env: {} });

    expect(run.logDir).not.toBeNull();
    expect(run.statusPath).toBe(path.join(run.logDir as string, 'status.json'));
    expect(fs.statSync(run.logDir as string).isDirectory()).toBe(true);
    expect(readStatus(run.logDir as string).phase).toBe('starting');
    expect(fake.server.requests).toHaveLength(0);

    const types: string[] = [];
    const stream = run.stream();
    let next = await stream.next();
    for (; !next.done; next = await stream.next()) types.push(next.value.type);
    expect(types[0]).toBe('run.started');
    expect(types.at(-1)).toBe('run.finished');
    expect(types.filter((t) => t === 'run.finished')).toHaveLength(1);
    // The generator's return value is the result.
    expect(next.value).toMatchObject({ status: 'completed', winnerId: 'alpha' });
    expect(await run.result).toEqual(next.value);
    expect(readStatus(run.logDir as string).phase).toBe('finished');
  });

  it('breaking out of the stream early cancels the run and still flushes a complete log', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    const seen: RunEvent[] = [];
    const run = await prepareRun({
      config: teamConfig(['alpha', 'beta']),
      question: QUESTION,
      cwd,
      env: {},
      onEvent: (event) => seen.push(event),
    });

    let steps = 0;
    for await (const event of run.stream()) {
      if (event.type === 'agent.step.started') steps++;
      if (steps === 2) break;
    }
    const result = await run.result;

    expect(result).toMatchObject({ status: 'cancelled', exitCode: 130, winnerId: null, finalAnswer: null });
    expect(result.error?.code).toBe('cancelled');
    const logDir = run.logDir as string;
    const events = readEvents(logDir);
    const last = events.at(-1);
    expect(last).toMatchObject({ type: 'run.finished', status: 'cancelled', exitCode: 130 });
    // The result, onEvent and the log agree on how the run ended.
    expect(result.runId).toBe(last?.runId);
    expect(seen.at(-1)).toEqual(last);
    expect(readStatus(logDir).final).toMatchObject({ status: 'cancelled', exit_code: 130 });
  });
});

describe('agents with ScriptedBackends', () => {
  /** Answers while agent1 has no answer, then votes for agent1; presents `final` (no workflow tools). */
  const decide =
    (answer: string, final: string): ScriptStep =>
    (request) => {
      const vote = request.tools.find((t) => t.name === 'vote');
      if (!request.tools.some((t) => t.name === 'new_answer')) return { text: final };
      const votable = (vote?.parameters as { properties?: { agent_id?: { enum?: string[] } } } | undefined)
        ?.properties?.agent_id?.enum;
      if (votable?.includes('agent1'))
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'complete' } }] };
      return { toolCalls: [{ name: 'new_answer', arguments: { content: answer } }] };
    };

  it('runs without any HTTP', async () => {
    const cwd = makeWorkdir();
    const first = new ScriptedBackend([decide('42', 'It is 42.')], { repeatLast: true, model: 'one' });
    const second = new ScriptedBackend([decide('forty-two', 'unused')], { repeatLast: true, model: 'two' });

    const result = await runMassGen({
      // The config's backends are never built when `agents` is given (type "scripted" is not registered).
      config: {
        agents: [
          { id: 'first', backend: { type: 'scripted', model: 'one' } },
          { id: 'second', backend: { type: 'scripted', model: 'two' } },
        ],
      },
      agents: [
        { id: 'first', backend: first },
        { id: 'second', backend: second },
      ],
      question: QUESTION,
      cwd,
      env: {},
    });

    expect(result).toMatchObject({
      status: 'completed',
      exitCode: 0,
      winnerId: 'first',
      finalAnswer: 'It is 42.',
    });
    expect(fs.readFileSync(result.answerFile as string, 'utf8')).toBe('It is 42.');
    expect(first.requests.length).toBeGreaterThan(0);
    expect(second.requests.length).toBeGreaterThan(0);
    expect(first.unexpectedCalls).toEqual([]);
    expect(second.unexpectedCalls).toEqual([]);
    expect(fake.server.requests).toHaveLength(0);
  });
});
