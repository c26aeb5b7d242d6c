/**
 * Evals: does the team beat one model? Runs a dataset through `runBatch`, grades the team's answers and
 * — from the same runs' logs — each agent's first answer and their majority vote, and reports accuracy
 * with Wilson intervals, McNemar tests, cost and a chart. Reads result lines and logs only; no
 * coordination logic of its own.
 */
export { runEval, type RunEvalOptions, type EvalOutcome } from './run-eval.js';
export {
  readDataset,
  renderChoices,
  gsm8kAnswer,
  EvalLineSchema,
  DATASET_FORMATS,
  type DatasetFormat,
  type Dataset,
  type EvalItem,
} from './dataset.js';
export {
  localScorer,
  normalizeText,
  extractNumber,
  extractChoice,
  SCORER_NAMES,
  type Scorer,
  type ScorerName,
  type Verdict,
} from './scorers.js';
export { createJudgeScorer, JUDGE_RUBRIC, judgePrompt, parseVerdict, type JudgeScorer } from './judge.js';
export { wilsonInterval, mcnemarExact } from './stats.js';
export { runFacts, readRunFacts, type RunFacts, type FirstAnswer } from './run-facts.js';
export {
  scoreQuestion,
  majorityOf,
  type QuestionRecord,
  type GradedAnswer,
  type SeparateAnswer,
} from './score-questions.js';
export {
  summarizeEval,
  BASELINE_NAMES,
  type BaselineName,
  type EvalSummary,
  type SystemSummary,
  type LostQuestion,
} from './report.js';
export {
  bestOfNSamples,
  matchedMaxTokens,
  BEST_OF_N_MAX,
  SEPARATE_BASELINE_KINDS,
  type SeparateBaseline,
  type SeparateBaselineKind,
} from './separate-baselines.js';
export { reportMarkdown } from './report-markdown.js';
export { accuracyCostChart } from './chart-svg.js';
export {
  BENCHMARKS,
  BENCHMARK_NAMES,
  loadBenchmark,
  selectRows,
  gsm8kFlexibleExtract,
  officialChoiceExtract,
  extractCode,
  humanEvalProgram,
  createCodeSandbox,
  benchmarkCacheDir,
  datasetsEndpoint,
  type BenchmarkName,
  type BenchmarkRequest,
  type LoadedBenchmark,
  type RowsRecord,
} from './benchmarks/index.js';
