import type { RowsRecord } from './benchmarks/load-benchmark.js';
import type { EvalSummary, SystemSummary } from './report.js';

/** What the markdown report says about the eval besides its numbers. */
export interface ReportHeader {
  dataset: string;
  config: string;
  scorer: string;
  /** Questions in the dataset (the report covers those with a result). */
  total: number;
  judge?: { model: string; rubric: string; promptTemplate: string; calls: number; tokens: number };
  /** Every agent of the team and its model. */
  models: { agent: string; backend: string; model: string | null }[];
  /** A public benchmark: which rows of which revision, the prompt and the scoring. */
  benchmark?: RowsRecord;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const cell = (text: string | null) =>
  text === null ? '—' : text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 120);
const p = (value: number) => (value < 0.0001 ? '<0.0001' : value.toFixed(4));

function systemRow(s: SystemSummary): string {
  const cost = s.costUsdPerQuestion === null ? '—' : `$${s.costUsdPerQuestion.toFixed(6)}`;
  const tokens = s.tokensPerQuestion === null ? '—' : s.tokensPerQuestion.toFixed(0);
  const latency = s.latencyMsPerQuestion === null ? '—' : `${(s.latencyMsPerQuestion / 1000).toFixed(2)} s`;
  const vs = s.vsTeam ? `${s.vsTeam.teamOnly} / ${s.vsTeam.baselineOnly}, p = ${p(s.vsTeam.pValue)}` : '—';
  const best = s.vsBestMember
    ? `${s.vsBestMember.systemOnly} / ${s.vsBestMember.memberOnly}, p = ${p(s.vsBestMember.pValue)}`
    : '—';
  return `| ${s.name} | ${s.correct}/${s.n} | ${pct(s.accuracy)} | ${pct(s.ci95.low)} – ${pct(s.ci95.high)} | ${tokens} | ${cost} | ${latency} | ${vs} | ${best} |`;
}

/** `eval-report.md`: the numbers of {@link EvalSummary} for people. */
export function reportMarkdown(header: ReportHeader, summary: EvalSummary): string {
  const lines = [
    '# MassGen eval: does the team beat one model?',
    '',
    `- dataset: \`${header.dataset}\` — ${summary.questions} of ${header.total} questions answered`,
    `- team: \`${header.config}\` — ${header.models.map((m) => `${m.agent} (${m.backend}${m.model ? `, ${m.model}` : ''})`).join(', ')}`,
    `- scorer: \`${header.scorer}\``,
    ...(summary.failedRuns > 0 ? [`- runs without an answer: ${summary.failedRuns} (counted wrong)`] : []),
    ...(summary.withoutLogs > 0
      ? [
          `- questions whose run log could not be read here: ${summary.withoutLogs} (no single-agent answers; counted wrong for the baselines)`,
        ]
      : []),
    `- rounds (most answers by one agent): mean ${summary.rounds.mean.toFixed(2)}, max ${summary.rounds.max}; votes counted: mean ${summary.votes.mean.toFixed(2)}, total ${summary.votes.total}`,
    '',
    '## Accuracy',
    '',
    'Single-agent baselines are each agent’s first answer in the same run, majority is the plurality of those',
    'answers (ties: the answer given first in config order), oracle is “some agent’s first answer was right”.',
    'Tokens, cost and latency are means per question; a single agent’s are its own calls up to its first answer.',
    '“team / other” counts the questions only the team got right and only the other did; p is McNemar’s',
    'exact two-sided test. “this / best member” pairs each system the same way with the best member’s first',
    'answers.',
    ...(summary.systems.some((s) => s.kind === 'single-call' || s.kind === 'best-of-n')
      ? [
          'single-call:A asks agent A alone, once, with max_tokens = the team’s tokens on the question; best-of-n:A',
          'takes N such samples (N = the team’s tokens ÷ A’s first-answer tokens, 1–8), each with an N-th, and picks',
          'the plurality answer (ties: the earliest sample). Their tokens and cost are all their calls’.',
        ]
      : []),
    '',
    `| system | right | accuracy | 95% CI (Wilson) | tokens | cost | latency | team / other, McNemar | this / best member${summary.bestMember ? ` (${summary.bestMember})` : ''}, McNemar |`,
    '| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |',
    ...summary.systems.map(systemRow),
    '',
    '![accuracy against cost](eval-chart.svg)',
    '',
    `## Questions the team lost to its best member${summary.bestMember ? ` (${summary.bestMember})` : ''}`,
    '',
  ];
  if (summary.lostToBestMember.length === 0) lines.push('None.');
  else {
    lines.push('| id | reference | team answered | member answered |', '| --- | --- | --- | --- |');
    for (const q of summary.lostToBestMember)
      lines.push(
        `| ${cell(q.id)} | ${cell(q.reference)} | ${cell(q.teamAnswer)} | ${cell(q.memberAnswer)} |`,
      );
  }
  if (header.benchmark) lines.push('', ...benchmarkSection(header.benchmark));
  if (header.judge) {
    lines.push(
      '',
      '## Judge',
      '',
      `Graded by \`${header.judge.model}\`: ${header.judge.calls} calls, ${header.judge.tokens} tokens (not counted in the systems' costs). System message:`,
      '',
      '```text',
      header.judge.rubric,
      '```',
      '',
      'User message:',
      '',
      '```text',
      header.judge.promptTemplate,
      '```',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** What a reader of a paper's table needs to compare: which rows, which revision, which prompt and rule. */
function benchmarkSection(b: RowsRecord): string[] {
  const shown = 60;
  const rows =
    b.rows.length <= shown
      ? b.rows.join(', ')
      : `${b.rows.slice(0, shown).join(', ')}, … (all ${b.rows.length} in eval-report.json)`;
  return [
    `## Benchmark: ${b.title}`,
    '',
    `- dataset: \`${b.dataset}\`, config \`${b.config}\`, split \`${b.split}\`, revision \`${b.revision}\``,
    `- rows: ${b.rows.length} of ${b.numRowsTotal} (${b.limit === null ? 'all' : `a sample of ${b.limit}, seed ${b.seed}`}); seed ${b.seed}`,
    `- row indices: ${rows}`,
    `- SHA-256 of the rows: \`${b.rowsSha256}\``,
    `- fetched from ${b.source} at ${b.fetchedAt}`,
    `- scoring: ${b.scoring}`,
    '',
    "Prompt (the row's fields in braces):",
    '',
    '```text',
    b.prompt,
    '```',
  ];
}
