/**
 * The parts of `massgen eval`'s command line that choose what runs: a dataset or a public benchmark,
 * a team config or a local model. Kept apart from the command so its flags stay readable.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CommanderError } from 'commander';
import type { RowsRecord } from '../eval/benchmarks/load-benchmark.js';

/** The options whose combination is checked (the rest of `EvalOptions` does not matter here). */
interface Chosen {
  config?: string;
  localModel?: string;
  dataset?: string;
  scorer?: string;
  benchmark?: string;
}

const DATASET_ONLY = ['samples', 'format', 'tolerance', 'judgeConfig', 'judgeAgent'] as const;
const BENCHMARK_ONLY = ['limit', 'split', 'seed', 'codeTimeout'] as const;
const flag = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * Refuses a command line that names no source or two (a dataset and a benchmark, a config and a
 * local model), or a flag of one with the other, in one line a person can act on. `given` says
 * whether a flag was typed (not defaulted).
 *
 * @throws {CommanderError} as commander's own errors are (exit code 1).
 */
export function checkEvalCombination(options: Chosen, given: (key: string) => boolean): void {
  const fail = (message: string): never => {
    throw new CommanderError(1, 'massgen.eval.usage', message);
  };
  if (options.config !== undefined && options.localModel !== undefined)
    fail('use either --config or --local-model, not both');
  if (options.config === undefined && options.localModel === undefined)
    fail('no team: pass --config FILE, or --local-model PATH for three agents on a local model');
  if (options.dataset !== undefined && options.benchmark !== undefined)
    fail('use either --dataset or --benchmark, not both');
  if (options.dataset === undefined && options.benchmark === undefined)
    fail('nothing to evaluate: pass --dataset FILE --scorer NAME, or --benchmark NAME');
  if (options.dataset !== undefined) {
    if (options.scorer === undefined)
      fail('--dataset needs --scorer NAME (exact, numeric, choice, contains, regex or judge)');
    const stray = BENCHMARK_ONLY.find(given);
    if (stray) fail(`${flag(stray)} goes with --benchmark (for a dataset: --samples N takes the first N)`);
  } else {
    if (options.scorer !== undefined) fail('--benchmark grades by its own rules: drop --scorer');
    const stray = DATASET_ONLY.find(given);
    if (stray) fail(`${flag(stray)} goes with --dataset (for a benchmark: --limit N takes a seeded sample)`);
  }
}

/**
 * The zero-key team for `--local-model`: three agents on the one model (it is loaded once and shared),
 * each at its own temperature so they do not simply agree with themselves, written as
 * `<output>/local-team.json` so the separate-call baselines can derive their one-agent configs.
 */
export function writeLocalTeam(model: string, outputDir: string, cwd: string): string {
  const resolved = model.startsWith('hf:') ? model : path.resolve(cwd, model);
  // Literal text: a `${` in a path must not be read as a variable.
  const literal = resolved.replaceAll('${', () => '$${');
  const agent = (id: string, temperature: number) => ({
    id,
    backend: { type: 'local', model: literal, temperature },
  });
  const config = {
    agents: [agent('local_a', 0.3), agent('local_b', 0.6), agent('local_c', 0.9)],
    // Small models rarely stop improving on their own: after two answers each, they vote.
    orchestrator: { max_new_answers_per_agent: 2 },
  };
  mkdirSync(outputDir, { recursive: true });
  const file = path.join(outputDir, 'local-team.json');
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** The first line of the summary for a benchmark: what was asked, of which revision. */
export function benchmarkLine(questions: number, b: RowsRecord): string {
  const sample = b.limit === null ? 'all' : `a sample of ${b.limit}`;
  return `Eval: ${questions} questions of ${b.title} (${b.dataset} ${b.config}/${b.split}, revision ${b.revision.slice(0, 12)}, ${sample} of ${b.numRowsTotal} rows, seed ${b.seed})\n`;
}
