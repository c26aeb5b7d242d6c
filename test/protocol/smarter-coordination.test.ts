import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import type { CoordinationSettings } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import {
  ScriptedBackend,
  step,
  type RecordedRequest,
  type ScriptStep,
} from '../../src/testing/scripted-backend.js';
import {
  answered,
  gateOn,
  lookupAfter,
  lookupTool,
  requestText,
  runScenario,
  toolNames,
} from '../support/harness.js';
import { onVirtualClock, useVirtualTimers } from '../support/virtual-clock.js';

interface PersonaOptions {
  /** Vote for this id when it is votable (else the first votable id). */
  voteFor?: string;
  /** As judge, pick this id. */
  pick?: string;
  /** As the final checker: send the answer back on the first check. */
  sendBackOnce?: { reason: string; instructions: string };
  /** The answer text (default `Answer by <name>`). */
  answer?: string;
}

/**
 * A scripted model that handles whatever it is asked, whatever the timing: answers once per attempt,
 * then votes; presents `Final from <name> (attempt n)`; judges and checks as told.
 */
function persona(name: string, steps = 20, options: PersonaOptions = {}): ScriptStep[] {
  let answeredIn = 0;
  let checked = false;
  const decide = (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    const text = requestText(request);
    const attempt = (text.match(/Attempt \d+ was not accepted/g) ?? []).length + 1;
    if (tools.includes('pick_answer'))
      return step.tool('pick_answer', { agent_id: options.pick ?? 'agent1', reason: `${name} prefers it` });
    if (tools.includes('request_restart')) {
      if (options.sendBackOnce && !checked) {
        checked = true;
        return step.tool('request_restart', options.sendBackOnce);
      }
      return step.tool('accept_answer', {});
    }
    if (!tools.includes('vote') && !tools.includes('new_answer'))
      return { text: `Final from ${name} (attempt ${attempt})` };
    if (tools.includes('new_answer') && answeredIn < attempt) {
      answeredIn = attempt;
      return step.answer(options.answer ?? `Answer by ${name}`);
    }
    const vote = request.tools.find((t) => t.name === 'vote');
    const ids = (vote?.parameters as { properties: { agent_id: { enum: string[] } } }).properties.agent_id
      .enum;
    const target = options.voteFor && ids.includes(options.voteFor) ? options.voteFor : (ids[0] as string);
    return step.vote(target, 'looks right');
  };
  return Array.from({ length: steps }, () => decide);
}

/** Runs a team built by hand (shared models, context windows), recording events. */
async function runTeam(
  agents: { id: string; steps: ScriptStep[]; model?: string; contextWindow?: number }[],
  settings: Partial<CoordinationSettings> = {},
) {
  const backends = Object.fromEntries(
    agents.map((a) => [a.id, new ScriptedBackend(a.steps, { model: a.model ?? `model-${a.id}` })]),
  );
  const orchestrator = new Orchestrator({
    agents: agents.map((a) => ({
      id: a.id,
      backend: backends[a.id] as ScriptedBackend,
      ...(a.contextWindow ? { contextWindow: a.contextWindow } : {}),
    })),
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000, ...settings },
  });
  const recorder = await EventRecorder.record(orchestrator.run('What is the answer?'));
  return { recorder, backends, finished: recorder.finished };
}

describe('early stopping', () => {
  // Timeouts race scripted delays here: on a virtual clock, in the order written.
  useVirtualTimers();
  it('consensus: majority stops as soon as a strict majority backs one answer; the rest is cancelled at once', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder, finished } = await onVirtualClock(
      runScenario(
        {
          a: [step.answer('A'), step.vote('agent1'), step.text('Final A')],
          b: [lookupAfter(aAnswered), step.vote('agent1')],
          c: [step.hang()],
        },
        { tools: true, settings: { consensus: 'majority' }, onEvent: (e) => aAnswered.check(e) },
      ),
    );
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({ reason: 'consensus', winnerId: 'a' });
    expect(recorder.ofType('agent.turn.finished').find((t) => t.agentId === 'c')?.outcome).toBe('aborted');
    expect(finished).toMatchObject({ status: 'completed', finalAnswer: 'Final A' });
  });

  it('consensus: all (the default) waits for every active agent', async () => {
    const aAnswered = gateOn(answered('a'));
    const { recorder } = await onVirtualClock(
      runScenario(
        {
          a: [step.answer('A'), step.vote('agent1'), step.text('Final A')],
          b: [lookupAfter(aAnswered), step.vote('agent1')],
          c: [step.hang()],
        },
        { tools: true, settings: { orchestratorTimeoutMs: 300 }, onEvent: (e) => aAnswered.check(e) },
      ),
    );
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('timeout');
    expect(recorder.ofType('vote.cast').filter((v) => v.counted)).toHaveLength(2);
  });
});

describe('deadline and budget awareness', () => {
  // Timeouts race scripted delays here: on a virtual clock, in the order written.
  useVirtualTimers();
  it('agents are told the time and budget left; at wrap_up_at a working agent is asked to finish', async () => {
    const { recorder, backends } = await onVirtualClock(
      runScenario(
        {
          a: [
            { ...step.tool('lookup', { q: 'x' }), delayMs: 250 },
            step.answer('A'),
            step.vote('agent1'),
            step.text('F'),
          ],
          b: [{ ...step.vote('agent1'), delayMs: 300 }],
        },
        { tools: true, settings: { orchestratorTimeoutMs: 1_000, wrapUpAt: 0.2, maxCostUsd: 5 } },
      ),
    );
    const opening = requestText(backends['a']?.requests[0]);
    expect(opening).toMatch(
      /TIME LEFT: about 1s of the 1s allowed for coordination\. BUDGET LEFT: \$5\.0000 of \$5\./,
    );
    expect(recorder.ofType('coordination.wrap_up')).toHaveLength(1);
    // The step after the wrap-up point carries the message, once.
    const next = backends['a']?.requests[1];
    expect(next?.messages.at(-1)?.content).toMatch(/^TIME IS NEARLY UP: about \d+s remain/);
    expect(requestText(backends['a']?.requests[2]).match(/TIME IS NEARLY UP/g)).toHaveLength(1);
  });
});

describe('voting sensitivity and selection', () => {
  it('voting_sensitivity sets the bar in the instructions', async () => {
    for (const sensitivity of ['lenient', 'balanced', 'strict'] as const) {
      const { backends } = await runScenario(
        { a: [step.answer('A'), step.vote('agent1'), step.text('F')], b: [step.vote('agent1')] },
        { settings: { votingSensitivity: sensitivity } },
      );
      const system = backends['a']?.requests[0]?.messages[0]?.content ?? '';
      expect(system).toContain(`VOTING BAR (${sensitivity})`);
    }
  });

  it('selection: judge lets one agent pick among the candidates, over the votes', async () => {
    // Everyone votes for agent1, but the judge (c) picks b's answer.
    const { recorder, finished, backends } = await runTeam(
      [
        { id: 'a', steps: persona('a', 20, { voteFor: 'agent1' }) },
        { id: 'b', steps: persona('b', 20, { voteFor: 'agent1' }) },
        { id: 'c', steps: persona('c', 20, { voteFor: 'agent1', pick: 'agent2' }) },
      ],
      { selection: 'judge', judgeAgentId: 'c' },
    );
    expect(recorder.ofType('selection.judged')[0]).toMatchObject({ agentId: 'c', winnerId: 'b' });
    expect(recorder.ofType('coordination.finished')[0]).toMatchObject({ winnerId: 'b', tallies: { a: 3 } });
    expect(finished).toMatchObject({ winnerId: 'b', finalAnswer: 'Final from b (attempt 1)' });
    const judging = backends['c']?.requests.find((r) => toolNames(r).includes('pick_answer'));
    expect(requestText(judging)).toMatch(
      /<agent1>\nAnswer by a\n<end of agent1>[\s\S]*<agent2>\nAnswer by b/,
    );
  });

  it('selection: synthesize asks the winner to merge the best parts of every answer', async () => {
    const { backends } = await runScenario(
      {
        a: [step.answer('A'), step.vote('agent1'), step.text('F')],
        b: [step.answer('B'), step.vote('agent1')],
      },
      { settings: { selection: 'synthesize' } },
    );
    const presentation = backends['a']?.requests.at(-1)?.messages[0]?.content ?? '';
    expect(presentation).toMatch(
      /SYNTHESIS: do not just restate your answer\. Merge the best parts of ALL the answers/,
    );
  });
});

describe('orchestration restart', () => {
  it('the winner sends the final answer back once; every agent sees why in the next attempt', async () => {
    const sendBackOnce = { reason: 'the units are missing', instructions: 'give the result in metres' };
    const { recorder, finished, backends } = await runTeam(
      [
        { id: 'a', steps: persona('a', 30, { voteFor: 'agent1', sendBackOnce }) },
        { id: 'b', steps: persona('b', 30, { voteFor: 'agent1' }) },
      ],
      { maxOrchestrationRestarts: 1 },
    );
    expect(recorder.ofType('orchestration.checked')[0]).toMatchObject({ agentId: 'a', accepted: false });
    expect(recorder.ofType('orchestration.restarted')).toEqual([
      expect.objectContaining({
        attempt: 2,
        reason: 'the units are missing',
        instructions: 'give the result in metres',
      }),
    ]);
    // The earlier attempt stays in the log.
    expect(recorder.ofType('presentation.finished').map((p) => p.content)).toEqual([
      'Final from a (attempt 1)',
      'Final from a (attempt 2)',
    ]);
    const restartedAt = recorder.ofType('orchestration.restarted')[0]?.seq ?? 0;
    const secondAttempt = recorder.events.filter((e) => e.seq > restartedAt && e.type === 'answer.submitted');
    expect(secondAttempt.map((e) => (e.type === 'answer.submitted' ? e.label : ''))).toContain('agent1.1');
    expect(
      backends['b']?.requests.some((r) =>
        /Attempt 1 was not accepted: the units are missing\nInstructions: give the result in metres/.test(
          requestText(r),
        ),
      ),
    ).toBe(true);
    // One restart allowed and used: no second check.
    expect(recorder.ofType('orchestration.checked')).toHaveLength(1);
    expect(finished).toMatchObject({ status: 'completed', finalAnswer: 'Final from a (attempt 2)' });
  });
});

describe('debug_final_answer', () => {
  it("the first attempt's check reads the config's debug answer instead; later checks read the real one", async () => {
    const sendBackOnce = { reason: 'Paul is missing', instructions: 'describe both members' };
    const { recorder, finished, backends } = await runTeam(
      [
        { id: 'a', steps: persona('a', 30, { voteFor: 'agent1', sendBackOnce }) },
        { id: 'b', steps: persona('b', 30, { voteFor: 'agent1' }) },
      ],
      { maxOrchestrationRestarts: 2, debugFinalAnswer: 'DEBUG: John Lennon was born in 1940.' },
    );
    const checks = (backends['a']?.requests ?? []).filter((r) => toolNames(r).includes('request_restart'));
    expect(checks).toHaveLength(2);
    expect(requestText(checks[0])).toContain('DEBUG: John Lennon was born in 1940.');
    expect(requestText(checks[0])).not.toContain('Final from a (attempt 1)');
    expect(requestText(checks[1])).toContain('Final from a (attempt 2)');
    expect(requestText(checks[1])).not.toContain('DEBUG:');
    expect(recorder.ofType('run.warning').filter((w) => w.code === 'debug_final_answer')).toHaveLength(1);
    expect(finished).toMatchObject({ status: 'completed', finalAnswer: 'Final from a (attempt 2)' });
  });
});

describe('skip_coordination_rounds', () => {
  it('the first agent answers directly and that is final; the others are never asked', async () => {
    const { recorder, finished, backends } = await runTeam(
      [
        { id: 'a', steps: persona('a') },
        { id: 'b', steps: persona('b') },
      ],
      { skipCoordinationRounds: true },
    );
    expect(backends['b']?.requests).toEqual([]);
    expect(backends['a']?.requests).toHaveLength(1);
    expect(toolNames(backends['a']?.requests[0])).not.toContain('vote');
    expect(recorder.ofType('vote.cast')).toEqual([]);
    expect(finished).toMatchObject({
      status: 'completed',
      winnerId: 'a',
      finalAnswer: 'Final from a (attempt 1)',
    });
  });
});

describe('large teams', () => {
  it('islands: each agent sees only its island; the island winners meet in a final round', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const { recorder, backends, finished } = await runTeam(
      ids.map((id) => ({ id, steps: persona(id) })),
      { visibility: 'islands', visibilityK: 3 },
    );
    // d, e, f (agent4–6) never see a, b, c's answers before the final round, and vice versa.
    const beforeFinal = (id: string) =>
      (backends[id]?.requests ?? []).filter((r) => !requestText(r).includes('FINAL ROUND'));
    for (const id of ['d', 'e', 'f'])
      for (const r of beforeFinal(id)) expect(requestText(r)).not.toMatch(/<agent[123]>/);
    for (const id of ['a', 'b', 'c'])
      for (const r of beforeFinal(id)) expect(requestText(r)).not.toMatch(/<agent[456]>/);
    const final = recorder.ofType('coordination.final_round')[0];
    expect(final?.finalists.map((f) => f.agentId)).toHaveLength(2);
    const finalists = new Set(final?.finalists.map((f) => f.agentId));
    expect(finalists.has(finished.winnerId as string)).toBe(true);
    // In the final round nobody may answer.
    const finalRequests = ids.flatMap((id) =>
      (backends[id]?.requests ?? []).filter((r) => requestText(r).includes('FINAL ROUND')),
    );
    expect(finalRequests.length).toBeGreaterThan(0);
    for (const r of finalRequests) expect(toolNames(r)).toEqual(['vote']);
  });

  it('32 agents with random_k: every request shows at most k+1 answers (context O(k), not O(N))', async () => {
    const ids = Array.from({ length: 32 }, (_, i) => `p${i + 1}`);
    const { backends, finished } = await runTeam(
      ids.map((id) => ({ id, steps: persona(id, 40) })),
      { visibility: 'random_k', visibilityK: 3 },
    );
    expect(finished.status).toBe('completed');
    let most = 0;
    for (const id of ids)
      for (const r of backends[id]?.requests ?? [])
        most = Math.max(most, (requestText(r).match(/<end of agent\d+>/g) ?? []).length);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(4);
  });

  it('ring: each agent sees itself and its k neighbours', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const { backends } = await runTeam(
      ids.map((id) => ({ id, steps: persona(id) })),
      { visibility: 'ring', visibilityK: 1 },
    );
    // a (agent1) sees agent1 and agent2 only.
    for (const r of backends['a']?.requests ?? []) expect(requestText(r)).not.toMatch(/<agent[345]>/);
  });
});

describe('context limits', () => {
  it('a request that would overflow the context window is trimmed with a note, never sent whole', async () => {
    const long = 'x'.repeat(6_000);
    const { recorder, backends, finished } = await runTeam([
      { id: 'a', steps: persona('a', 20, { voteFor: 'agent1', answer: `A ${long}` }) },
      { id: 'b', steps: persona('b', 20, { voteFor: 'agent1' }), contextWindow: 1_000 },
    ]);
    const trimmed = recorder.ofType('agent.context.trimmed').find((e) => e.agentId === 'b');
    expect(trimmed).toMatchObject({ contextWindow: 1_000 });
    expect(trimmed?.afterTokens).toBeLessThanOrEqual(750);
    const sent = requestText(backends['b']?.requests.find((r) => requestText(r).includes('cut to fit')));
    expect(sent).toMatch(/characters of this answer cut to fit the context window/);
    expect(sent.length).toBeLessThan(4_000);
    expect(finished.status).toBe('completed');
  });
});

describe('diversity', () => {
  it("paraphrase: agents after the first read the question in their own model's words too", async () => {
    const { recorder, backends } = await runScenario(
      {
        a: [step.answer('A'), step.vote('agent1'), step.text('F')],
        b: [step.text('What answer is being asked for?'), { ...step.vote('agent1'), delayMs: 5 }],
      },
      { settings: { paraphrase: true } },
    );
    expect(backends['b']?.requests[0]?.messages[0]?.content).toMatch(
      /^Rewrite the user's task in your own words/,
    );
    expect(recorder.ofType('agent.question.paraphrased')).toEqual([
      expect.objectContaining({ agentId: 'b', text: 'What answer is being asked for?' }),
    ]);
    expect(requestText(backends['b']?.requests[1])).toContain(
      '<THE SAME TASK IN OTHER WORDS>\nWhat answer is being asked for?',
    );
    expect(requestText(backends['a']?.requests[0])).not.toContain('THE SAME TASK IN OTHER WORDS');
  });

  it('personas: auto gives agents that share a model distinct working styles', async () => {
    const { backends } = await runTeam(
      ['a', 'b', 'c'].map((id) => ({ id, steps: persona(id), model: 'same-model' })),
      { personas: 'auto' },
    );
    const styleOf = (id: string) =>
      /YOUR WORKING STYLE: (.*)/.exec(backends[id]?.requests[0]?.messages[0]?.content ?? '')?.[1] ?? null;
    expect(styleOf('a')).toBeNull();
    expect(styleOf('b')).not.toBeNull();
    expect(styleOf('c')).not.toBeNull();
    expect(styleOf('b')).not.toBe(styleOf('c'));
  });
});

// The tool used by the wrap-up scenario.
void lookupTool;
