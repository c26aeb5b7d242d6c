import { setFlagsFromString } from 'node:v8';

/** How far the old generation may grow past what survived a full collection: 1.5× (V8's default: up to 4×). */
const HEAP_GROWING_PERCENT = 50;

/** What decides the CLI's V8 settings: the user's own Node flags and the Node version. */
export interface CliV8Context {
  /** Flags Node itself was started with (`process.execArgv`). */
  readonly execArgv: readonly string[];
  /** `NODE_OPTIONS`, where users put Node flags for a bin they do not start themselves. */
  readonly nodeOptions: string | undefined;
  /** `process.versions.node`. */
  readonly nodeVersion: string;
}

/**
 * The V8 flags the CLI sets on itself after V8 has started — only ones that are safe to set then
 * (docs/architecture.md, "Decisions", has the evidence):
 *
 * - `--wasm-tiering-budget`: Node's `fetch` parses HTTP with a WebAssembly build of llhttp, and V8's
 *   optimizing compiler tiers its parser up a few hundred milliseconds into a run, a ~28 MiB transient
 *   that was the peak of a short run. The largest budget V8 takes (2^31 - 1) leaves it on the baseline
 *   compiler, which parses model streams as fast as they arrive; a long-lived process still tiers up
 *   once it has parsed a lot. (A budget of 10^9 ran out in a 64-agent run, and the tier-up then landed
 *   on the run's peak: 141 MiB against 111 MiB.)
 *   V8 reads the budget when it sets up a WebAssembly instance and when a function's budget runs out —
 *   no instance exists yet when the bin sets it, and V8's own tests change it the same way after start —
 *   so a run is in the state `node --wasm-tiering-budget=…` starts in (the same peak RSS on Node 20, 22
 *   and 24; `test/e2e/cli-v8-flags.test.ts`).
 *
 * - `--heap-growing-percent=50` (Node 20, the only one it was checked on): after a full collection V8
 *   lets the old generation grow to up to 4× what survived before the next one. A big team's requests
 *   keep their buffers for the whole call, so they are promoted and die old: at 1,000 agents the heap
 *   rose from ~65 MB live to ~200 MB of mostly garbage (peak RSS 275–337 MiB). At 1.5× it peaks at
 *   ~120 MB (RSS ~235 MiB) for a few more concurrent markings; a short run never reaches its first full
 *   collection, so it is unchanged. V8 reads the flag each time it sets the next limit, so set after start
 *   it does what it does given at start-up (V8's `--trace-gc-verbose` shows the same factor; e2e test).
 *
 * Not set: `--semi-space-growth-factor=1` (it kept the young generation small, ~12 MiB), because V8
 * raises that factor to at least 2 while it configures the heap — it only took effect when set after
 * that check, a state V8 itself refuses. `NODE_OPTIONS=--max-semi-space-size=1` does the same job at
 * start-up, the documented way.
 *
 * A flag the user sets (on the command line or in `NODE_OPTIONS`) wins: we leave that setting alone.
 * Only on the Node majors whose V8 has the flag — V8 prints an error for a flag it does not know.
 */
export function cliV8Flags(context: CliV8Context): string[] {
  const major = Number(context.nodeVersion.split('.')[0]);
  if (!(major >= 20 && major <= 24)) return [];
  const userFlags = [...context.execArgv, context.nodeOptions ?? ''].join(' ');
  const flags: string[] = [];
  if (!/wasm-tiering-budget|liftoff|wasm-dynamic-tiering/.test(userFlags))
    flags.push('--wasm-tiering-budget=2147483647');
  if (major === 20 && !/heap-growing-percent|optimize-for-size|max-old-space-size/.test(userFlags))
    flags.push(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return flags;
}

/** Applies {@link cliV8Flags} to this process. The bin calls it before it loads anything else. */
export function applyCliV8Flags(): void {
  const flags = cliV8Flags({
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    nodeVersion: process.versions.node,
  });
  if (flags.length > 0) setFlagsFromString(flags.join(' '));
}
