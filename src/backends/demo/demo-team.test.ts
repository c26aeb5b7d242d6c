/**
 * The scripted demo team through the real orchestrator (runMassGen, no network): every run tells the
 * whole story — three first answers, Grace's revision, a vote it resets, votes, Grace presenting — and
 * answers right, at full speed (pace 0) and at the watchable pace alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMassGen } from '../../app/index.js';
import type { RunEvent } from '../../types/events.js';
import { SCRIPTED_NOTE } from './index.js';

const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-demo-team-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const team = (pace: number | Record<string, number>) => ({
  agents: ['ada', 'grace', 'linus'].map((id) => ({
    id,
    backend: {
      type: 'demo',
      model: `scripted-${id}`,
      provider_options: { pace: typeof pace === 'number' ? pace : pace[id] },
    },
  })),
  orchestrator: { answer_novelty_requirement: 'lenient' },
});

async function run(question: string, pace: number | Record<string, number> = 0) {
  const events: RunEvent[] = [];
  const result = await runMassGen({
    question,
    config: team(pace),
    cwd,
    env: {},
    logging: false,
    onEvent: (event) => events.push(event),
  });
  return { result, events };
}

const of = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('the scripted demo team', () => {
  it.each([
    ['What is 6 times 7?', 'The answer is 42: 6 × 7 = 42. Check: 42 ÷ 7 = 6.', 'Quick one: 41.'],
    ['What is the capital of Australia?', 'Canberra, not Sydney', 'Sydney.'],
    ['At what temperature does water boil?', 'about 1 °C per 300 m', 'Roughly 100 degrees.'],
  ])('%s: answers, a revision, a reset, votes, and Grace presents', async (question, final, hasty) => {
    const { result, events } = await run(question);
    expect(result.status).toBe('completed');
    expect(result.winnerId).toBe('grace');
    expect(result.finalAnswer).toContain(final);
    expect(result.finalAnswer?.endsWith(SCRIPTED_NOTE)).toBe(true);
    const answers = of(events, 'answer.submitted').map((e) => `${e.agentId}:${e.label}`);
    expect(answers.sort()).toEqual(['ada:agent1.1', 'grace:agent2.1', 'grace:agent2.2', 'linus:agent3.1']);
    expect(of(events, 'answer.submitted').find((e) => e.agentId === 'linus')?.content).toBe(hasty);
    // Grace's revision always resets a vote cast for her first answer.
    const resets = of(events, 'votes.reset');
    expect(resets.map((e) => e.causedBy)).toContain('agent2.2');
    const counted = of(events, 'vote.cast').filter((e) => e.counted);
    expect(
      counted
        .slice(-3)
        .map((e) => `${e.agentId}→${e.targetLabel}`)
        .sort(),
    ).toEqual(['ada→agent2.2', 'grace→agent2.2', 'linus→agent2.2']);
    expect(of(events, 'run.warning').map((e) => e.code)).toContain('scripted_demo');
  });

  it('tells the same story at the watchable pace', async () => {
    const { result, events } = await run('What is 12 plus 30?', 1);
    expect(result.winnerId).toBe('grace');
    expect(result.finalAnswer).toContain('The answer is 42: 12 + 30 = 42.');
    expect(of(events, 'votes.reset').map((e) => e.causedBy)).toContain('agent2.2');
  }, 60_000);

  it('the revision still resets a counted vote when Grace is far faster than her teammates', async () => {
    // Unpaced, Grace would revise before anyone voted: the cue makes her wait for a counted vote.
    const { result, events } = await run('What is 1000 minus 1?', { ada: 3, grace: 0, linus: 3 });
    expect(result.winnerId).toBe('grace');
    const reset = of(events, 'votes.reset').find((e) => e.causedBy === 'agent2.2');
    expect(reset?.clearedVoters.length).toBeGreaterThan(0);
  }, 60_000);

  it('a lone scripted agent answers directly, still saying it is scripted', async () => {
    const result = await runMassGen({
      question: 'What is 2.5 times 4?',
      config: { agents: [{ id: 'grace', backend: { type: 'demo', model: 'scripted-grace' } }] },
      cwd,
      env: {},
      logging: false,
    });
    expect(result.finalAnswer).toBe(
      `The answer is 10: 2.5 × 4 = 10. Check: 10 ÷ 4 = 2.5.\n\n${SCRIPTED_NOTE}`,
    );
  });

  it('names the models it has when the config names another', async () => {
    await expect(
      runMassGen({
        question: 'q',
        config: { agents: [{ id: 'x', backend: { type: 'demo', model: 'gpt-5' } }] },
        cwd,
        env: {},
        logging: false,
      }),
    ).rejects.toThrow(/the demo backend has no model "gpt-5"/);
  });

  it('names the models it has when the config names none', async () => {
    const run = runMassGen({
      question: 'q',
      config: { agents: [{ id: 'x', backend: { type: 'demo' } }] },
      cwd,
      env: {},
      logging: false,
    });
    await expect(run).rejects.toMatchObject({
      hint: 'the demo backend needs a model name: one of scripted-ada, scripted-grace, scripted-linus',
    });
  });
});
