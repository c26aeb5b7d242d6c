import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedBackend, step, type RecordedRequest, type ScriptStep } from '../testing/scripted-backend.js';
import type { RunEvent } from '../types/events.js';
import { runMassGen } from './run-massgen.js';

const dir = mkdtempSync(path.join(tmpdir(), 'massgen-quality-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const toolNames = (r: RecordedRequest) => r.tools.map((t) => t.name);
const text = (r: RecordedRequest) => r.messages.map((m) => m.content).join('\n');

/** Scores every answer 9 on every criterion, then votes as the verdict says. */
function scorer(name: string): ScriptStep[] {
  return Array.from({ length: 12 }, () => (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    if (tools.includes('submit_checklist')) {
      const params = request.tools.find((t) => t.name === 'submit_checklist')?.parameters as {
        properties: {
          evaluations: {
            items: { properties: { agent_id: { enum: string[] }; scores: { required: string[] } } };
          };
        };
      };
      const items = params.properties.evaluations.items.properties;
      return step.tool('submit_checklist', {
        evaluations: items.agent_id.enum.map((id) => ({
          agent_id: id,
          scores: Object.fromEntries(
            items.scores.required.map((c) => [c, { score: 9, reason: `${name} ok` }]),
          ),
        })),
      });
    }
    if (tools.includes('vote')) {
      const vote = request.tools.find((t) => t.name === 'vote')?.parameters as {
        properties: { agent_id: { enum: string[] } };
      };
      return step.vote(vote.properties.agent_id.enum[0] as string, 'passes');
    }
    if (tools.includes('new_answer')) return step.answer(`Answer by ${name}`);
    return { text: `Final from ${name}: ${/<CRITERIA>/.test(text(request)) ? 'with criteria' : 'plain'}` };
  });
}

describe('a MassGen config with the quality loop, run end to end', () => {
  it('honours checklist_gated, the eval-criteria file and synthesize, and logs the score matrix (scores.json)', async () => {
    writeFileSync(
      path.join(dir, 'criteria.yaml'),
      [
        'aspiration: A reliable answer.',
        'criteria:',
        '  - { text: Correct, tier: primary, anti_patterns: [guessing] }',
        '  - { text: Complete, tier: standard }',
        '  - { text: Clear, tier: standard }',
        '  - { text: Insightful, tier: stretch }',
        '',
      ].join('\n'),
    );
    const events: RunEvent[] = [];
    const result = await runMassGen({
      question: 'What is 6 x 7?',
      cwd: dir,
      env: {},
      config: {
        agents: [
          { id: 'a', backend: { type: 'openai', model: 'gpt-4o', api_key: 'x' } },
          { id: 'b', backend: { type: 'openai', model: 'gpt-4o', api_key: 'x' } },
        ],
        orchestrator: { voting_sensitivity: 'checklist_gated', final_answer_strategy: 'synthesize' },
      },
      evalCriteria: 'criteria.yaml',
      agents: [
        { id: 'a', backend: new ScriptedBackend(scorer('a')) },
        { id: 'b', backend: new ScriptedBackend(scorer('b')) },
      ],
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toMatch(/^Final from \w: with criteria$/);
    const started = events.find((e) => e.type === 'run.started');
    expect(started?.type === 'run.started' && started.settings).toMatchObject({
      votingSensitivity: 'checklist_gated',
      finalAnswerStrategy: 'synthesize',
      coordinationMode: 'voting',
    });
    expect(events.filter((e) => e.type === 'run.warning')).toEqual([]);
    const criteria = events.find((e) => e.type === 'checklist.criteria');
    expect(criteria).toMatchObject({ source: 'file', aspiration: 'A reliable answer.' });

    const logDir = path.join(
      dir,
      '.massgen',
      'massgen_logs',
      readdirSync(path.join(dir, '.massgen', 'massgen_logs'))[0] as string,
    );
    const scores = JSON.parse(readFileSync(path.join(logDir, 'scores.json'), 'utf8')) as {
      source: string;
      criteria: { id: string }[];
      rounds: { round: number; matrix: Record<string, Record<string, { mean: number }>> }[];
      verdicts: { verdict: string }[];
    };
    expect(scores.source).toBe('file');
    expect(scores.criteria.map((c) => c.id)).toEqual(['E1', 'E2', 'E3', 'E4']);
    expect(scores.rounds[0]?.matrix['a']?.['E1']?.mean).toBe(9);
    expect(scores.verdicts.every((v) => v.verdict === 'converge')).toBe(true);
    expect(readFileSync(path.join(logDir, 'coordination_table.txt'), 'utf8')).toMatch(
      /CHECKLIST round 1:[\s|]+CONVERGE/,
    );
  });

  it('an invalid eval-criteria file stops the run before it starts, naming file:line', async () => {
    writeFileSync(path.join(dir, 'bad.yaml'), 'aspiration: x\ncriteria: []\n');
    await expect(
      runMassGen({
        question: 'q',
        cwd: dir,
        env: {},
        logging: false,
        config: { agents: [{ id: 'a', backend: { type: 'openai', model: 'gpt-4o', api_key: 'x' } }] },
        evalCriteria: 'bad.yaml',
        agents: [{ id: 'a', backend: new ScriptedBackend([]) }],
      }),
    ).rejects.toThrow(/^bad\.yaml:2:11: criteria: give 4 to 7 criteria/);
  });
});
