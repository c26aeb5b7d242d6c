/**
 * Public benchmarks for `massgen eval --benchmark`: each split loaded at run time from the Hugging
 * Face datasets server (cached, resumable offline), turned into questions with the benchmark's fixed
 * prompt, and graded the way its authors grade it — HumanEval's tests in the OS sandbox.
 */
export {
  BENCHMARKS,
  DEFAULT_CODE_TIMEOUT_MS,
  canonicalJson,
  loadBenchmark,
  selectRows,
  type BenchmarkRequest,
  type LoadedBenchmark,
  type RowsRecord,
} from './load-benchmark.js';
export { BENCHMARK_NAMES, type BenchmarkName, type BenchmarkSpec } from './spec.js';
export { extractCode, gsm8kFlexibleExtract, humanEvalProgram, officialChoiceExtract } from './extract.js';
export { gpqaOrder } from './gpqa.js';
export { createCodeSandbox, type CodeRun, type CodeSandbox } from './code-sandbox.js';
export { loadSplit, PAGE_ROWS, type LoadedSplit, type LoadSplitOptions } from './load-split.js';
export { benchmarkCacheDir } from './split-cache.js';
export { DEFAULT_DATASETS_ENDPOINT, datasetsEndpoint, mayCarryHfToken } from './hf-client.js';
