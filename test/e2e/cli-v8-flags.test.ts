/**
 * The CLI sets V8 flags on itself after V8 has started (src/cli/v8-flags.ts): undici's WebAssembly
 * HTTP parser stays on the baseline compiler, and (Node 20) the old generation grows to 1.5× its live size. Node warns that a flag set after start may do nothing, or
 * worse. These runs show that it does exactly what the same flag given at start-up does — V8's trace of
 * its WebAssembly compiles is the witness, so no timing or memory figure is involved — and that a run
 * streaming a lot through the parser with it ends cleanly. What it is worth in peak memory is measured
 * by `npm run bench`, not here (docs/architecture.md, "Decisions").
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  CLI_BIN,
  agentEntry,
  cleanEnv,
  convergingHandler,
  makeWorkdir,
  persona,
  useFakeServer,
  writeConfig,
  type CliResult,
} from './cli-harness.js';

const fake = useFakeServer();

/** Runs a three-agent question through the CLI with `nodeFlags` given to node itself, --no-display. */
function run(nodeFlags: readonly string[]): Promise<CliResult> {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: ['agent1', 'agent2', 'agent3'].map((id) =>
      agentEntry(id, fake.server.url, { system_message: persona(id) }),
    ),
    ui: { logging_enabled: false },
  });
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [...nodeFlags, CLI_BIN, '--no-display', '--config', 'config.yaml', 'q'],
    { cwd, env: cleanEnv(cwd), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut: false }),
    ),
  );
}

/** Functions V8 compiled with its optimizing WebAssembly compiler, from `--trace-wasm-compilation-times`. */
const optimizedCompiles = (stdout: string): number => (stdout.match(/using TurboFan/g) ?? []).length;
const TRACE = '--trace-wasm-compilation-times';

const major = Number(process.versions.node.split('.')[0]);
const applies = major >= 20 && major <= 24;

describe('the CLI’s V8 settings', () => {
  it.skipIf(!applies)(
    `keep undici’s parser off the optimizing compiler, exactly as the flag given at start-up does${applies ? '' : ` (skipped: Node ${major} gets no flag)`}`,
    async () => {
      fake.server.setHandler(convergingHandler);
      // V8's own budget, given on node's command line (so the CLI leaves it): the run tiers the parser up.
      const withDefault = await run([TRACE, '--wasm-tiering-budget=1800000']);
      expect(withDefault.code).toBe(0);
      expect(optimizedCompiles(withDefault.stdout)).toBeGreaterThan(0);
      // The CLI's setting, made after V8 started, and the same setting made at start-up: no tier-up.
      const setByCli = await run([TRACE]);
      const atStartUp = await run([TRACE, '--wasm-tiering-budget=2147483647']);
      for (const result of [setByCli, atStartUp]) {
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('Compiled function');
        expect(optimizedCompiles(result.stdout)).toBe(0);
      }
    },
  );

  it.skipIf(major !== 20)(
    `set after start, the heap growth factor is what the same flag gives at start-up, and the user’s wins${major === 20 ? '' : ` (skipped: Node ${major} gets no heap flag)`}`,
    () => {
      // The bin's own call, then enough kept objects for V8 to run full collections and set new limits.
      const flagsModule = pathToFileURL(
        path.join(path.dirname(CLI_BIN), '..', 'dist', 'cli', 'v8-flags.js'),
      ).href;
      const script = (applied: boolean) =>
        `${applied ? `(await import(${JSON.stringify(flagsModule)})).applyCliV8Flags();` : ''}` +
        'const keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ a: "x" + i, b: [i] }); if (i % 1e5 === 0) keep.splice(0, 5e4); }';
      /** The growth factor of each limit V8 set (`[HeapController] Limit: … (1.5)`). */
      const factors = (nodeFlags: string[], applied: boolean): string[] => {
        const result = spawnSync(
          process.execPath,
          [...nodeFlags, '--trace-gc-verbose', '--input-type=module', '-e', script(applied)],
          { encoding: 'utf8', env: { PATH: process.env.PATH }, maxBuffer: 256 * 1024 * 1024 },
        );
        expect(result.status, result.stderr).toBe(0);
        return [...result.stdout.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((m) => m[1]!);
      };
      const setByCli = factors([], true);
      const atStartUp = factors(['--heap-growing-percent=50'], false);
      const usersOwn = factors(['--heap-growing-percent=200'], true);
      for (const seen of [setByCli, atStartUp, usersOwn]) expect(seen.length).toBeGreaterThan(0);
      expect(new Set(setByCli)).toEqual(new Set(['1.5']));
      expect(new Set(atStartUp)).toEqual(new Set(['1.5']));
      expect(new Set(usersOwn)).toEqual(new Set(['3.0']));
    },
    60_000,
  );

  it('a run that streams a lot through the parser with them ends cleanly', async () => {
    // Every reply streams 40 000 characters of reasoning in 4-character chunks before its answer.
    const reasoning = 'thinking about it '.repeat(2_222);
    fake.server.setHandler((body): FakeResponse => {
      const reply = convergingHandler(body);
      return 'status' in reply || 'hang' in reply ? reply : { ...reply, reasoning, chunkSize: 4 };
    });
    const result = await run([]);
    expect(result.stderr).toBe('');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Final answer from agent1');
  }, 60_000);
});
