import { setFlagsFromString } from 'node:v8';

/** What decides the CLI's V8 settings: its arguments, the user's own Node flags and the Node version. */
export interface CliV8Context {
  /** The CLI's arguments (without `node` and the script). */
  readonly argv: readonly string[];
  /** Flags Node itself was started with (`process.execArgv`). */
  readonly execArgv: readonly string[];
  /** `NODE_OPTIONS`, where users put Node flags for a bin they do not start themselves. */
  readonly nodeOptions: string | undefined;
  /** `process.versions.node`. */
  readonly nodeVersion: string;
}

/**
 * The V8 flags the CLI sets on itself, each from a measurement (`npm run bench`, the peak-RSS rows):
 *
 * - `--wasm-tiering-budget`: Node's `fetch` parses HTTP with a WebAssembly build of llhttp, and V8's
 *   optimizing compiler tiers its parser up a few hundred milliseconds into a run, a ~28 MiB transient
 *   that was the peak of a short run. A large budget leaves it on the baseline compiler, which parses
 *   model streams as fast as they arrive; a long-lived process still tiers up once it has parsed a lot.
 * - `--semi-space-growth-factor=1`: V8 grows the young generation to 16 MiB semi-spaces under the
 *   allocation bursts of a run, ~12 MiB more RSS for little speed at this size. Kept at its initial
 *   1 MiB for runs; `serve` and `--web` are long-lived servers where throughput matters more, so they
 *   keep V8's default. Measured on Node 20; newer V8s clamp the factor to at least 2, where the flag
 *   then changes nothing.
 *
 * A flag the user sets (on the command line or in `NODE_OPTIONS`) wins: we leave that setting alone.
 * Only on the Node majors whose V8 has both flags — V8 prints an error for a flag it does not know.
 */
export function cliV8Flags(context: CliV8Context): string[] {
  const major = Number(context.nodeVersion.split('.')[0]);
  if (!(major >= 20 && major <= 24)) return [];
  const userFlags = [...context.execArgv, context.nodeOptions ?? ''].join(' ');
  const flags: string[] = [];
  if (!/wasm-tiering-budget|liftoff|wasm-dynamic-tiering/.test(userFlags)) {
    flags.push('--wasm-tiering-budget=1000000000');
  }
  const server = context.argv[0] === 'serve' || context.argv.includes('--web');
  if (!server && !/semi-space/.test(userFlags)) flags.push('--semi-space-growth-factor=1');
  return flags;
}

/** Applies {@link cliV8Flags} to this process. The bin calls it before it loads anything else. */
export function applyCliV8Flags(): void {
  const flags = cliV8Flags({
    argv: process.argv.slice(2),
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    nodeVersion: process.versions.node,
  });
  if (flags.length > 0) setFlagsFromString(flags.join(' '));
}
