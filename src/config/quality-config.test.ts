import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigValidationError, formatDiagnostics } from './diagnostics.js';
import { loadEvalCriteriaFile } from './eval-criteria-file.js';
import { checkConfig, configNotes, parseConfig } from './parse-config.js';
import { inlineTier } from './quality-schema.js';

const dir = mkdtempSync(path.join(tmpdir(), 'massgen-criteria-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const team = (orchestrator: Record<string, unknown>) => ({
  agents: [
    { id: 'a', backend: { type: 'openai', model: 'gpt-4o' } },
    { id: 'b', backend: { type: 'openai', model: 'gpt-4o' } },
  ],
  orchestrator,
});

describe('the quality loop in the config (MassGen keys honoured)', () => {
  it('reads checklist_gated with inline criteria, the final-answer strategy and decomposition, without warnings', () => {
    const config = parseConfig(
      parse(`
agents:
  - id: a
    backend: { type: openai, model: gpt-4o }
    subtask: Write the introduction
  - id: b
    backend: { type: openai, model: gpt-4o }
    subtask: Write the examples
orchestrator:
  voting_sensitivity: checklist_gated
  final_answer_strategy: synthesize
  coordination_mode: decomposition
  presenter_agent: b
  coordination:
    checklist_threshold: 8
    checklist_criteria_inline:
      - text: The numbers are right
        category: must
        anti_patterns: [rounding]
      - text: Explains the method
        category: standard
        verify_by: re-derive it
      - { text: Adds a check }
`) as unknown,
      { env: {} },
    );
    expect(configNotes(config)).toEqual([]);
    const o = config.orchestrator;
    expect(o).toMatchObject({
      voting_sensitivity: 'checklist_gated',
      final_answer_strategy: 'synthesize',
      coordination_mode: 'decomposition',
      presenter_agent: 'b',
    });
    expect(o.coordination.checklist_threshold).toBe(8);
    expect(o.coordination.checklist_criteria_inline?.map(inlineTier)).toEqual([
      'primary',
      'standard',
      'standard',
    ]);
    expect(config.agents.map((agent) => agent.subtask)).toEqual([
      'Write the introduction',
      'Write the examples',
    ]);
  });

  it("MassGen's presets that are not shipped use the evaluation preset, with a note", () => {
    const config = parseConfig(team({ coordination: { checklist_criteria_preset: 'persona' } }), { env: {} });
    expect(config.orchestrator.coordination.checklist_criteria_preset).toBe('evaluation');
    expect(configNotes(config).map((n) => n.message)).toEqual([
      'orchestrator.coordination.checklist_criteria_preset (MassGen): MassGen\'s "persona" criteria preset is not shipped: the "evaluation" preset is used (presets: evaluation, planning, analysis, code, writing)',
    ]);
    const own = parseConfig(team({ coordination: { checklist_criteria_preset: 'code' } }), { env: {} });
    expect(own.orchestrator.coordination.checklist_criteria_preset).toBe('code');
    expect(configNotes(own)).toEqual([]);
  });

  it('names the agent a presenter_agent must be, and the values the new keys take', () => {
    const { diagnostics } = checkConfig(
      team({ presenter_agent: 'zed', final_answer_strategy: 'winner', coordination_mode: 'teams' }),
      { env: {} },
    );
    const text = formatDiagnostics(diagnostics);
    expect(text).toMatch(/presenter_agent "zed" is not an agent of this config; agents: a, b/);
    expect(text).toMatch(
      /final_answer_strategy: invalid value; allowed: winner_present, winner_reuse, synthesize/,
    );
    expect(text).toMatch(/coordination_mode: invalid value; allowed: voting, decomposition/);
  });
});

describe('--eval-criteria FILE', () => {
  const write = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return name;
  };
  const problems = (name: string): string => {
    try {
      loadEvalCriteriaFile(name, dir);
      return 'valid';
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      return formatDiagnostics((error as ConfigValidationError).diagnostics, name);
    }
  };

  it('reads an aspiration and 4–7 criteria with tier and anti-patterns (YAML or JSON)', () => {
    const criteria = [
      { text: 'Rollback works', tier: 'primary', anti_patterns: ['irreversible steps'] },
      { text: 'Downtime under a minute', tier: 'primary' },
      { text: 'Monitoring named', tier: 'standard' },
      { text: 'Costs estimated', tier: 'stretch' },
    ];
    const json = write('c.json', JSON.stringify({ aspiration: 'A safe migration.', criteria }));
    expect(loadEvalCriteriaFile(json, dir)).toEqual({
      aspiration: 'A safe migration.',
      criteria: criteria.map((c) => ({ anti_patterns: [], ...c })),
    });
  });

  it('reports every problem with its file:line:column', () => {
    const name = write(
      'bad.yaml',
      [
        'aspiration: Good',
        'criteria:',
        '  - text: One',
        '    tier: must',
        '  - text: Two',
        '    tier: primary',
        '    antipatterns: [x]',
        '',
      ].join('\n'),
    );
    const text = problems(name);
    expect(text).toMatch(/^bad\.yaml:3:3: criteria: give 4 to 7 criteria/m);
    expect(text).toMatch(
      /^bad\.yaml:4:11: criteria\[0\]\.tier: invalid value; allowed: primary, standard, stretch/m,
    );
    expect(text).toMatch(
      /^bad\.yaml:7:5: unknown key "antipatterns" at criteria\[1\] — did you mean "anti_patterns"\?/m,
    );
    expect(problems(write('empty.yaml', ''))).toMatch(/the eval criteria file is empty/);
    expect(problems('missing.yaml')).toMatch(/eval criteria file not found: .*missing\.yaml/);
    expect(problems(write('syntax.yaml', 'aspiration: [\n'))).toMatch(
      /^syntax\.yaml:\d+:\d+: YAML syntax error/m,
    );
  });
});
