/**
 * The CLI sets one V8 flag on itself after V8 has started (src/cli/v8-flags.ts): undici's WebAssembly
 * HTTP parser stays on the baseline compiler. Node warns that a flag set after start may do nothing, or
 * worse. These runs show that it does exactly what the same flag given at start-up does — V8's trace of
 * its WebAssembly compiles is the witness, so no timing or memory figure is involved — and that a run
 * streaming a lot through the parser with it ends cleanly. What it is worth in peak memory is measured
 * by `npm run bench`, not here (docs/architecture.md, "Decisions").
 */
import { describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  convergingHandler,
  makeWorkdir,
  persona,
  runCli,
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
  return runCli(['--no-display', '--config', 'config.yaml', 'q'], { cwd, nodeFlags });
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
  });
});
