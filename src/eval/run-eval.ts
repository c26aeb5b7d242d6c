import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { prepareBackends } from '../app/build-agents.js';
import { isExampleRef, loadDotEnv, resolveExampleRef, type Env } from '../app/essentials.js';
import { runBatch, type BatchSummary, type RunBatchOptions } from '../batch/index.js';
import { BatchResultLineSchema, type BatchResultLine } from '../batch/result-line.js';
import { loadConfigFile } from '../config/index.js';
import type { DownloadProgress } from '../types/backend.js';
import type { CommonRunOptions } from '../types/run-options.js';
import type { BenchmarkRequest, RowsRecord } from './benchmarks/load-benchmark.js';
import { accuracyCostChart } from './chart-svg.js';
import type { DatasetFormat, EvalItem } from './dataset.js';
import { claimOutput, evalSource } from './eval-source.js';
import { JUDGE_RUBRIC, judgePrompt } from './judge.js';
import { reportMarkdown, type ReportHeader } from './report-markdown.js';
import { BASELINE_NAMES, summarizeEval, type BaselineName, type EvalSummary } from './report.js';
import { readRunFacts } from './run-facts.js';
import { scoreQuestion, type QuestionRecord } from './score-questions.js';
import {
  bestOfNSamples,
  gradeSeparate,
  matchedMaxTokens,
  ownMaxTokens,
  sampleId,
  separateSystems,
  writeOneAgentConfig,
  type PlannedCall,
  type SeparateBaseline,
  type SeparateSystem,
} from './separate-baselines.js';
import type { ScorerName } from './scorers.js';

/**
 * Options of {@link runEval}: the common ones (not `logging`: the team's runs are always logged, the
 * single-agent baselines come from their events), a batch's, and an eval's own.
 */
export interface RunEvalOptions
  extends
    Omit<CommonRunOptions, 'logging'>,
    Pick<
      RunBatchOptions,
      'concurrency' | 'maxCostUsd' | 'redoErrors' | 'executor' | 'onProgress' | 'onNote'
    > {
  /** The team: a config path or `@examples/NAME`. */
  config: string;
  /** The dataset: JSON Lines (see `readDataset`); with `scorer`. Or a `benchmark`. */
  dataset?: string;
  /** How the dataset's answers are graded (a benchmark grades its own way). */
  scorer?: ScorerName;
  /**
   * A public benchmark instead of a dataset (`gsm8k`, `mmlu-pro`, `gpqa-diamond`, `humaneval`),
   * loaded from the Hugging Face datasets server or its cache, graded by its authors' rules.
   */
  benchmark?: BenchmarkRequest;
  /** The folder for `results.jsonl`, the reports and the chart (created; reruns resume in it). */
  output: string;
  /** Default: every one (`single`, `majority`). */
  baselines?: readonly BaselineName[];
  /**
   * Baselines run as calls of their own at the team's token budget (`single-call`, `best-of-n`);
   * default none. Each is a resumable batch in `<output>/baselines/<kind>-<agent>/`.
   */
  separate?: readonly SeparateBaseline[];
  /** Evaluate only the first N questions. */
  samples?: number;
  format?: DatasetFormat;
  /** `numeric`: relative tolerance (default 1e-6). */
  tolerance?: number;
  /** `judge`: the config with the judge's model (default: the team's) and its agent (default: the first). */
  judgeConfig?: string;
  judgeAgent?: string;
  /** Downloads before the runs (the benchmark's rows, a local model): drawn as a progress bar. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** For the benchmark cache (`~/.cache/massgen/benchmarks`); default the user's home. */
  home?: string;
}

/** What {@link runEval} did. */
export interface EvalOutcome {
  batch: BatchSummary;
  /** Null when the eval was interrupted (rerun the same command to resume). */
  summary: EvalSummary | null;
  files: { markdown: string; json: string; chart: string; results: string } | null;
  /** With a benchmark: the record of the rows asked (also in the report). */
  benchmark?: RowsRecord | null;
}

/** The result lines by id (the last line of an id wins: `--redo-errors` appends). */
function readResults(file: string): Map<string, BatchResultLine> {
  const byId = new Map<string, BatchResultLine>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return byId;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = BatchResultLineSchema.safeParse(JSON.parse(line));
      if (parsed.success) byId.set(parsed.data.id, parsed.data);
    } catch {
      // A line cut off mid-write: the batch drops it when it opens the file again.
    }
  }
  return byId;
}

/**
 * Runs an eval: every question of the dataset through the team (a resumable `runBatch` into
 * `<output>/results.jsonl`), then grades the team's final answers and — from each run's own
 * `events.jsonl`, at no extra cost — every agent's first answer and their majority vote, and writes
 * `eval-report.md`, `eval-report.json` and `eval-chart.svg` to `output`.
 *
 * @throws {ConfigError} for a malformed dataset line (named by its number), a bad config or judge.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalOutcome> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  const configFile = isExampleRef(options.config)
    ? resolveExampleRef(options.config)
    : path.resolve(cwd, options.config);
  const teamConfig = loadConfigFile(configFile, { env, cwd });
  const agentIds = teamConfig.agents.map((a) => a.id);
  const out = path.resolve(cwd, options.output);
  const separate = separateSystems(options.separate ?? [], agentIds, out);
  const source = await evalSource(options, cwd, env);
  try {
    mkdirSync(out, { recursive: true });
    if (source.benchmark) claimOutput(out, source.benchmark);
    const questions = path.join(out, 'questions.jsonl');
    writeFileSync(
      questions,
      source.items
        .map(
          (item) =>
            `${JSON.stringify({ id: item.id, question: item.prompt, attachments: item.attachments })}\n`,
        )
        .join(''),
    );
    // A local model is downloaded once here, with progress, rather than by the first runs at once.
    if (options.onDownloadProgress && !options.executor)
      await prepareBackends(teamConfig, env, {
        onProgress: options.onDownloadProgress,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    const models = teamConfig.agents.map((a) => ({
      agent: a.id,
      backend: a.backend.type,
      model: a.backend.model ?? null,
    }));
    const outcome = await evaluate(options, {
      cwd,
      env,
      out,
      questions,
      configFile,
      agentIds,
      models,
      separate,
      source,
    });
    return { ...outcome, benchmark: source.benchmark };
  } finally {
    await source.close();
  }
}

/** The team's batch, the grading, the separate baselines and the report. */
async function evaluate(
  options: RunEvalOptions,
  ctx: {
    cwd: string;
    env: Env;
    out: string;
    questions: string;
    configFile: string;
    agentIds: string[];
    models: ReportHeader['models'];
    separate: SeparateSystem[];
    source: Awaited<ReturnType<typeof evalSource>>;
  },
): Promise<EvalOutcome> {
  const { cwd, env, out, questions, configFile, agentIds, separate, source } = ctx;
  const { scorer, judge } = source;
  const results = path.join(out, 'results.jsonl');
  const batch = await runBatch({
    input: questions,
    output: results,
    config: configFile,
    cwd,
    env,
    strict: true,
    // The single-agent baselines come from each run's events.jsonl.
    logging: true,
    ...(options.redoErrors ? { redoErrors: true } : {}),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.maxCostUsd === undefined ? {} : { maxCostUsd: options.maxCostUsd }),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.executor ? { executor: options.executor } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.onNote ? { onNote: options.onNote } : {}),
  });
  if (batch.stoppedBy === 'interrupt') return { batch, summary: null, files: null };

  const lines = readResults(results);
  const records: QuestionRecord[] = [];
  const answered: { item: EvalItem; record: QuestionRecord }[] = [];
  for (const item of source.items) {
    const line = lines.get(item.id);
    if (!line) continue;
    const record = await scoreQuestion(item, line, await readRunFacts(line.log_dir), scorer, agentIds);
    records.push(record);
    answered.push({ item, record });
  }

  // The separate-call baselines: one resumable batch each, after the team's (they need its tokens).
  let spent = batch.costUsd;
  for (const system of separate) {
    mkdirSync(system.dir, { recursive: true });
    const plan = planSeparate(system, answered, configFile, agentIds);
    writeFileSync(
      path.join(system.dir, 'questions.jsonl'),
      [...plan.values()]
        .flat()
        .map(
          (c) =>
            `${JSON.stringify({ id: c.id, question: c.question, attachments: c.attachments, config: c.config })}\n`,
        )
        .join(''),
    );
    const remaining = options.maxCostUsd === undefined ? undefined : Math.max(0, options.maxCostUsd - spent);
    const sub = await runBatch({
      input: path.join(system.dir, 'questions.jsonl'),
      output: path.join(system.dir, 'results.jsonl'),
      cwd,
      env,
      strict: true,
      logging: false,
      ...(options.redoErrors ? { redoErrors: true } : {}),
      ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
      ...(remaining === undefined ? {} : { maxCostUsd: remaining }),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onNote ? { onNote: options.onNote } : {}),
    });
    spent += sub.costUsd;
    if (sub.stoppedBy === 'interrupt') return { batch, summary: null, files: null };
    if (sub.notRun > 0) {
      batch.notRun += sub.notRun;
      options.onNote?.(`${system.name}: ${sub.notRun} calls not made (the cost limit); they count as wrong`);
    }
    const subLines = readResults(path.join(system.dir, 'results.jsonl'));
    for (const { item, record } of answered)
      (record.baselines ??= {})[system.name] = await gradeSeparate(
        system,
        item,
        plan.get(item.id) ?? [],
        subLines,
        scorer,
      );
  }
  const baselines = options.baselines ?? BASELINE_NAMES;
  const summary = summarizeEval(records, agentIds, baselines, separate);
  const header: ReportHeader = {
    dataset: source.label,
    config: options.config,
    scorer: source.scorerLabel,
    total: source.items.length,
    models: ctx.models,
    ...(source.benchmark ? { benchmark: source.benchmark } : {}),
    ...(judge
      ? {
          judge: {
            model: judge.model,
            rubric: JUDGE_RUBRIC,
            promptTemplate: judgePrompt({ prompt: '{question}', answer: '{reference}' }, '{answer}'),
            calls: judge.calls(),
            tokens: judge.usage().inputTokens + judge.usage().outputTokens,
          },
        }
      : {}),
  };
  const files = {
    markdown: path.join(out, 'eval-report.md'),
    json: path.join(out, 'eval-report.json'),
    chart: path.join(out, 'eval-chart.svg'),
    results,
  };
  writeFileSync(files.markdown, reportMarkdown(header, summary));
  writeFileSync(
    files.json,
    `${JSON.stringify(
      {
        ...header,
        agents: agentIds,
        baselines,
        separateBaselines: separate.map((s) => ({ name: s.name, kind: s.kind, agent: s.agent })),
        summary,
        questions: records,
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    files.chart,
    accuracyCostChart(summary.systems, `Accuracy against cost — ${summary.questions} questions`),
  );
  return { batch, summary, files };
}

/**
 * The calls of a separate baseline per question, their one-agent configs written: `single-call` one
 * call with `max_tokens` = the team's tokens on the question; `best-of-n` N samples (see
 * `bestOfNSamples`), each with an N-th of them.
 */
function planSeparate(
  system: SeparateSystem,
  answered: readonly {
    item: { id: string; prompt: string; attachments: string[] };
    record: QuestionRecord;
  }[],
  configFile: string,
  agentIds: readonly string[],
): Map<string, PlannedCall[]> {
  const agentIndex = agentIds.indexOf(system.agent);
  const own = ownMaxTokens(configFile, agentIndex);
  const plan = new Map<string, PlannedCall[]>();
  const written = new Map<string, string>();
  for (const { item, record } of answered) {
    const teamTokens = record.team.tokens;
    const n =
      system.kind === 'single-call'
        ? 1
        : bestOfNSamples(
            teamTokens,
            record.logs ? (record.agents[system.agent]?.tokens ?? null) : null,
            agentIds.length,
          );
    const maxTokens = matchedMaxTokens(teamTokens, n, own);
    // One config per distinct max_tokens (named by it, so a rerun writes the same files).
    const key = String(maxTokens ?? 'own');
    let config = written.get(key);
    if (!config) {
      config = path.join(system.dir, 'configs', `max-tokens-${key}.json`);
      writeOneAgentConfig(configFile, agentIndex, maxTokens, config);
      written.set(key, config);
    }
    plan.set(
      item.id,
      Array.from({ length: n }, (_, k) => ({
        id: sampleId(item.id, k + 1, system.kind),
        question: item.prompt,
        attachments: item.attachments,
        config: config as string,
        maxTokens,
      })),
    );
  }
  return plan;
}
