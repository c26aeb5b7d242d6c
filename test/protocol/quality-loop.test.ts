import { describe, expect, it } from 'vitest';
import type { CoordinationSettings } from '../../src/coordination/settings.js';
import type { RecordedRequest, ScriptStep } from '../../src/testing/scripted-backend.js';
import { step } from '../../src/testing/scripted-backend.js';
import { initialRunState, reduceRunState } from '../../src/types/run-state.js';
import type { RunEvent } from '../../src/types/events.js';
import { scoreCell } from '../../src/types/quality-state.js';
import { answered, gateOn, requestText, runScenario, toolNames } from '../support/harness.js';

/** The `enum` of a string property somewhere in a tool's parameters, by path. */
function enumAt(request: RecordedRequest, tool: string, path: string[]): string[] {
  let node = request.tools.find((t) => t.name === tool)?.parameters as Record<string, unknown> | undefined;
  for (const key of path) node = (node?.[key] ?? undefined) as Record<string, unknown> | undefined;
  return (node?.['enum'] as string[] | undefined) ?? [];
}

/** Answers carry their quality (`quality=N`), which a scorer reads back as the score of every criterion. */
const qualityOf = (text: string, id: string): number =>
  Number(new RegExp(`<${id}>\\n[^\\n]*quality=(\\d+)`).exec(text)?.[1] ?? '0');

/**
 * A checklist-gated persona that handles whatever it is offered, whatever the timing: first answer at
 * `first` quality; scores every answer by the quality written in it; after an iterate verdict, improves
 * the best answer by 3 (at most 10); votes when the verdict says converge; presents `Final from <name>`.
 */
function gated(name: string, first: number, steps = 30): ScriptStep[] {
  let revision = 0;
  const decide = (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    const text = requestText(request);
    if (tools.includes('submit_checklist')) {
      const order = enumAt(request, 'submit_checklist', [
        'properties',
        'evaluations',
        'items',
        'properties',
        'agent_id',
      ]);
      const scoresProps = (
        request.tools.find((t) => t.name === 'submit_checklist')?.parameters as {
          properties: { evaluations: { items: { properties: { scores: { required: string[] } } } } };
        }
      ).properties.evaluations.items.properties.scores.required;
      return step.tool('submit_checklist', {
        evaluations: order.map((id) => ({
          agent_id: id,
          scores: Object.fromEntries(
            scoresProps.map((c) => [c, { score: qualityOf(text, id), reason: `${name} on ${id} ${c}` }]),
          ),
        })),
      });
    }
    const answerTool = request.tools.find((t) => t.name === 'new_answer');
    const plan =
      answerTool && 'improvement_plan' in (answerTool.parameters as { properties: object }).properties;
    if (plan) {
      const best = Math.max(...[...text.matchAll(/quality=(\d+)/g)].map((m) => Number(m[1])));
      revision++;
      return step.tool('new_answer', {
        improvement_plan: `${name}: raise every criterion of the best answer`,
        content: `quality=${Math.min(10, best + 3)}\n${name} revision ${revision}`,
      });
    }
    if (tools.includes('vote')) {
      const ids = enumAt(request, 'vote', ['properties', 'agent_id']);
      return step.vote(ids[0] as string, `${name}: the checklist says so`);
    }
    if (tools.includes('new_answer')) return step.answer(`quality=${first}\n${name} first answer`);
    return { text: `Final from ${name}` };
  };
  return Array.from({ length: steps }, () => decide);
}

const gatedSettings = (extra: Partial<CoordinationSettings> = {}): Partial<CoordinationSettings> => ({
  votingSensitivity: 'checklist_gated',
  checklist: {
    criteria: {
      source: 'config',
      aspiration: 'A correct, clear answer.',
      criteria: [
        { text: 'Correct', tier: 'primary', antiPatterns: ['guessing'] },
        { text: 'Complete', tier: 'standard' },
        { text: 'Insightful', tier: 'stretch' },
      ],
    },
    preset: null,
    threshold: 7,
  },
  ...extra,
});

const stateOf = (events: RunEvent[]) => events.reduce(reduceRunState, initialRunState());

describe('checklist_gated: iterate → improve → converge', () => {
  it('scores, iterates with a plan while the best answer fails, then converges and votes; the matrix replays from events', async () => {
    const { recorder, backends, finished } = await runScenario(
      { a: gated('a', 3), b: gated('b', 6) },
      { settings: gatedSettings() },
    );
    expect(finished.status).toBe('completed');
    expect(recorder.ofType('coordination.finished')[0]?.reason).toBe('consensus');

    const criteria = recorder.ofType('checklist.criteria');
    expect(criteria).toHaveLength(1);
    expect(criteria[0]).toMatchObject({
      source: 'config',
      threshold: 7,
      aspiration: 'A correct, clear answer.',
    });
    expect(criteria[0]?.criteria.map((c) => `${c.id}:${c.tier}`)).toEqual([
      'E1:primary',
      'E2:standard',
      'E3:stretch',
    ]);
    // It comes before any turn.
    expect(recorder.events.findIndex((e) => e.type === 'checklist.criteria')).toBeLessThan(
      recorder.events.findIndex((e) => e.type === 'agent.turn.started'),
    );

    const verdicts = recorder.ofType('checklist.verdict');
    expect(verdicts.some((v) => v.verdict === 'iterate' && v.failing.includes('E1'))).toBe(true);
    // Every agent's last verdict converges, on an answer that passes (quality ≥ 7).
    for (const id of ['a', 'b']) {
      const last = verdicts.filter((v) => v.agentId === id).at(-1);
      expect(last).toMatchObject({ verdict: 'converge', failing: [] });
    }
    // Every iterate verdict led to a stated plan, right before the answer it produced.
    const plans = recorder.ofType('checklist.plan');
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) {
      const at = recorder.events.indexOf(plan);
      expect(recorder.events[at + 1]).toMatchObject({ type: 'answer.submitted', agentId: plan.agentId });
      expect(plan.plan).toMatch(/raise every criterion/);
    }
    // Counted votes go to the best answer of the voter's last checklist.
    for (const vote of recorder.ofType('vote.cast').filter((v) => v.counted)) {
      const last = verdicts.filter((v) => v.agentId === vote.agentId).at(-1);
      expect(vote.targetLabel).toBe(last?.bestLabel);
    }

    // The gate shows the tools step by step: checklist only, then new_answer with a plan, or vote only.
    const a = backends['a'];
    const checklistStep = a?.requests.find((r) => toolNames(r).includes('submit_checklist'));
    expect(toolNames(checklistStep)).toEqual(['submit_checklist']);
    expect(requestText(checklistStep)).toMatch(/CHECKLIST GATE/);
    expect(requestText(checklistStep)).toMatch(/E1 \[primary, must reach 7\] Correct/);
    // Own answer never listed first (position bias): a is agent1, so agent2 comes first.
    expect(
      enumAt(checklistStep!, 'submit_checklist', [
        'properties',
        'evaluations',
        'items',
        'properties',
        'agent_id',
      ])[0],
    ).toBe('agent2');
    // Feedback from the last round is carried into the next turn's opening.
    const later = a?.requests.filter((r) => /CHECKLIST FEEDBACK FROM THE LAST ROUND/.test(requestText(r)));
    expect(later?.length).toBeGreaterThan(0);
    expect(requestText(later?.[0])).toMatch(
      /Your last checklist: ITERATE — the best answer \(agent\d\.1\) fell short on E1/,
    );
    // … and so are the peers' scores of the agent's own answer, criterion by criterion, with reasons.
    const scoredBack = Object.values(backends)
      .flatMap((backend) => backend.requests)
      .map(requestText)
      .find((t) => /How the others scored your answer/.test(t));
    expect(scoredBack).toMatch(
      /How the others scored your answer:\nE1: agent\d gave agent\d\.\d \d+ \([ab] on agent\d E1\)/,
    );

    // The score matrix (agents × criteria × rounds) is a reducer over the events.
    const quality = stateOf(recorder.events).quality;
    expect(quality?.rounds.length).toBeGreaterThanOrEqual(2);
    const round1 = quality?.rounds[0];
    expect(Object.keys(round1?.cells ?? {}).sort()).toEqual(['a', 'b']);
    expect(scoreCell(quality!, 1, 'a', 'E1')?.mean).toBe(3);
    expect(scoreCell(quality!, 1, 'b', 'E1')?.mean).toBe(6);
    const lastRound = quality!.rounds.at(-1)!.round;
    expect(
      Math.max(
        scoreCell(quality!, lastRound, 'a', 'E1')?.mean ?? 0,
        scoreCell(quality!, lastRound, 'b', 'E1')?.mean ?? 0,
      ),
    ).toBeGreaterThanOrEqual(7);
    for (const backend of Object.values(backends)) expect(backend.unexpectedCalls).toEqual([]);
  });

  it('generates the criteria from the question with one agent when none are configured (preset on failure)', async () => {
    const writer = (request: RecordedRequest): ScriptStep =>
      toolNames(request).includes('define_criteria')
        ? step.tool('define_criteria', {
            aspiration: 'Exactly right.',
            criteria: [
              { text: 'States 42', tier: 'primary', anti_patterns: ['rounding'] },
              { text: 'Shows the product', tier: 'standard', anti_patterns: [] },
              { text: 'No padding', tier: 'standard', anti_patterns: [] },
              { text: 'Adds a check', tier: 'stretch', anti_patterns: [] },
            ],
          })
        : (gated('a', 8)[0] as (r: RecordedRequest) => ScriptStep)(request);
    const { recorder } = await runScenario(
      { a: [writer, ...gated('a', 8)], b: gated('b', 8) },
      { settings: { votingSensitivity: 'checklist_gated' } },
    );
    expect(recorder.ofType('checklist.criteria')[0]).toMatchObject({
      source: 'generated',
      generatedBy: 'a',
      aspiration: 'Exactly right.',
      preset: null,
    });
    expect(recorder.finished.status).toBe('completed');

    const broken = (request: RecordedRequest): ScriptStep =>
      toolNames(request).includes('define_criteria')
        ? step.tool('define_criteria', { aspiration: 'x', criteria: [{ text: 'only one', tier: 'primary' }] })
        : { text: 'unused' };
    const fallback = await runScenario(
      { a: [broken, ...gated('a', 8)], b: gated('b', 8) },
      { settings: { votingSensitivity: 'checklist_gated' } },
    );
    expect(fallback.recorder.ofType('checklist.criteria')[0]).toMatchObject({
      source: 'fallback',
      preset: 'evaluation',
    });
    expect(fallback.recorder.ofType('checklist.criteria')[0]?.criteria).toHaveLength(5);
  });

  it('a checklist that misses an answer is refused with the reason and costs an enforcement retry', async () => {
    let refused = false;
    const sloppy = (request: RecordedRequest): ScriptStep => {
      if (toolNames(request).includes('submit_checklist') && !refused) {
        refused = true;
        return step.tool('submit_checklist', { evaluations: [] });
      }
      return (gated('a', 8)[0] as (r: RecordedRequest) => ScriptStep)(request);
    };
    const { recorder } = await runScenario(
      { a: [...Array.from({ length: 30 }, () => sloppy)], b: gated('b', 8) },
      { settings: gatedSettings() },
    );
    const rejected = recorder.ofType('workflow.rejected').find((r) => r.toolName === 'submit_checklist');
    expect(rejected?.reason).toMatch(/Score every answer: .* missing/);
    expect(recorder.finished.status).toBe('completed');
  });
});

describe('checklist_gated: a changed view voids the verdict', () => {
  it('a vote cast on a stale view is answered with the update, and the new answers are scored again', async () => {
    const aScored = gateOn((e) => e.type === 'checklist.submitted' && e.agentId === 'a');
    const bAnswered = gateOn(answered('b'));
    const rest = gated('a', 8)[0] as (r: RecordedRequest) => ScriptStep;
    const a = (request: RecordedRequest): ScriptStep =>
      toolNames(request).includes('vote') && !bAnswered.isOpen
        ? {
            waitFor: bAnswered.wait,
            toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'best' } }],
          }
        : rest(request);
    const { recorder, backends, finished } = await runScenario(
      {
        a: Array.from({ length: 20 }, () => a),
        b: [
          {
            waitFor: aScored.wait,
            toolCalls: [{ name: 'new_answer', arguments: { content: 'quality=9\nb first' } }],
          },
          ...gated('b', 9),
        ],
      },
      {
        settings: gatedSettings(),
        onEvent: (e) => {
          aScored.check(e);
          bAnswered.check(e);
        },
      },
    );
    expect(finished.status).toBe('completed');
    const aChecklists = recorder.ofType('checklist.submitted').filter((c) => c.agentId === 'a');
    expect(aChecklists[0]?.order).toEqual(['a']);
    expect(aChecklists[1]?.order).toEqual(['b', 'a']);
    const aVotes = recorder.ofType('vote.cast').filter((v) => v.agentId === 'a');
    expect(aVotes[0]).toMatchObject({ counted: false, targetLabel: 'agent1.1' });
    expect(aVotes.at(-1)).toMatchObject({ counted: true, targetLabel: 'agent2.1' });
    const afterStale = backends['a']?.requests.find((r) =>
      /Score the current answers again/.test(requestText(r)),
    );
    expect(toolNames(afterStale)).toEqual(['submit_checklist']);
  });
});

/** A voting-mode persona: answers once, votes for agent1, presents `Final from <name>`. */
function voter(name: string, steps = 12): ScriptStep[] {
  return Array.from({ length: steps }, () => (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    if (tools.includes('vote'))
      return step.vote(enumAt(request, 'vote', ['properties', 'agent_id'])[0] as string, `${name} likes it`);
    if (tools.includes('new_answer')) return step.answer(`Answer by ${name}`);
    return { text: `Final from ${name}` };
  });
}

describe('final_answer_strategy', () => {
  it('winner_reuse uses the winning answer verbatim and makes no presentation call', async () => {
    const { recorder, backends, finished } = await runScenario(
      { a: voter('a'), b: voter('b') },
      { settings: { finalAnswerStrategy: 'winner_reuse' } },
    );
    const winner = finished.winnerId as string;
    expect(recorder.ofType('presentation.started')).toEqual([
      expect.objectContaining({ agentId: winner, mode: 'verbatim' }),
    ]);
    expect(finished.finalAnswer).toBe(`Answer by ${winner}`);
    // Every model call was a coordination step (with workflow tools): none presented.
    for (const backend of Object.values(backends)) {
      expect(backend.unexpectedCalls).toEqual([]);
      expect(backend.requests.every((r) => toolNames(r).length > 0)).toBe(true);
    }
    expect(recorder.ofType('agent.step.started').every((s) => s.phase === 'coordination')).toBe(true);
  });

  it('winner_present has the winner write the final answer in one more call', async () => {
    const { recorder, backends, finished } = await runScenario(
      { a: voter('a'), b: voter('b') },
      { settings: { finalAnswerStrategy: 'winner_present' } },
    );
    expect(recorder.ofType('presentation.started')[0]?.mode).toBe('present');
    expect(finished.finalAnswer).toMatch(/^Final from /);
    const presenter = finished.winnerId as string;
    const last = backends[presenter]?.requests.at(-1);
    expect(toolNames(last)).toEqual([]);
    expect(requestText(last)).toMatch(/<ALL CURRENT ANSWERS>/);
  });

  it('synthesize merges the top answers with their votes and checklist scores as input', async () => {
    const { backends, finished } = await runScenario(
      { a: gated('a', 8), b: gated('b', 9), c: gated('c', 7) },
      { settings: gatedSettings({ finalAnswerStrategy: 'synthesize' }) },
    );
    expect(finished.status).toBe('completed');
    const presenter = finished.winnerId as string;
    const prompt = backends[presenter]?.requests.at(-1);
    const text = requestText(prompt);
    expect(text).toMatch(/SYNTHESIS: do not just restate your answer/);
    expect(text).toMatch(/<TOP ANSWERS>/);
    expect(text).toMatch(/Votes for it \(\d\):\n- agent\d: \w+: the checklist says so/);
    expect(text).toMatch(/Checklist scores \(mean\): E1 \d+(\.\d)?, E2 \d+(\.\d)?, E3/);
    expect(text).toMatch(/<CRITERIA>\n- E1: Correct/);
    // At most three answers, the presenter's own among them.
    expect(text.match(/^<\w+ \(agent\d\)/gm)?.length).toBeLessThanOrEqual(3);
    expect(text).toMatch(/— YOUR ANSWER>/);
  });
});
