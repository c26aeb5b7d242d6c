import { availableParallelism } from 'node:os';

/** The most threads {@link defaultThreads} ever picks: llama.cpp gains little past this on a CPU. */
export const MAX_DEFAULT_THREADS = 8;

/**
 * The CPU threads a local model uses when the config does not say (`backend.threads`).
 *
 * The rule:
 * - **2 cores or fewer: 1 thread.** llama.cpp's worker threads spin while they wait for each other, so a
 *   second thread on a 2-core machine fights the event loop, the other agents' work and the OS for the
 *   same cores. Measured with node-llama-cpp 3.22.1 on a 2-core machine: ~1,200 tokens/s with 1 thread
 *   against ~75 tokens/s with 2.
 * - **More cores: half of them** (`cores / 2`, rounded down, at most {@link MAX_DEFAULT_THREADS}).
 *   `availableParallelism()` counts logical cores; half is roughly the physical cores (token generation
 *   is memory-bound and hyper-threads add nothing), and it leaves the rest to the orchestrator, the
 *   tools and the other agents.
 *
 * @param cores Logical cores to plan for; defaults to `os.availableParallelism()`.
 */
export function defaultThreads(cores: number = availableParallelism()): number {
  if (!Number.isFinite(cores) || cores <= 2) return 1;
  return Math.max(1, Math.min(MAX_DEFAULT_THREADS, Math.floor(cores / 2)));
}
