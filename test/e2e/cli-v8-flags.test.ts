/**
 * The CLI sets V8 up for a lean run (src/cli/v8-flags.ts) before its modules load: the young generation
 * of a real run stays at its initial size, unless the user chose its size in NODE_OPTIONS. What that is
 * worth in peak memory is measured by `npm run bench`, not here.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLI_BIN,
  REPO_ROOT,
  agentEntry,
  cleanEnv,
  convergingHandler,
  makeWorkdir,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const REPORT = path.join(REPO_ROOT, 'test', 'fixtures', 'heap-report', 'report.mjs');
const fake = useFakeServer();

/** Runs a one-agent question through the CLI; resolves with its exit code and young-generation size. */
async function youngGenerationAfterRun(env: Record<string, string> = {}): Promise<[number | null, number]> {
  fake.server.setHandler(convergingHandler);
  const cwd = makeWorkdir();
  writeConfig(cwd, { agents: [agentEntry('agent1', fake.server.url)], ui: { logging_enabled: false } });
  const report = path.join(cwd, 'new-space.txt');
  const child = spawn(process.execPath, ['--import', REPORT, CLI_BIN, '--config', 'config.yaml', 'q'], {
    cwd,
    env: cleanEnv(cwd, { MASSGEN_HEAP_REPORT: report, ...env }),
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return [code, Number(readFileSync(report, 'utf8'))];
}

// V8 starts the young generation at 2 MiB (two 1 MiB semi-spaces on 64-bit Node 20) and, left alone,
// grows it to 16 MiB during even a one-agent run.
const SMALL = 4 * 1024 * 1024;

/** Whether this Node's V8 keeps the young generation small under the flag (newer V8s may clamp it). */
function growthFactorHonoured(): boolean {
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const v8 = require('node:v8');
       v8.setFlagsFromString('--semi-space-growth-factor=1');
       let keep = [];
       for (let i = 0; i < 3e6; i++) { keep.push({ i }); if (keep.length > 50000) keep = []; }
       console.log(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);`,
    ],
    { encoding: 'utf8' },
  );
  return Number(probe.stdout) <= SMALL;
}
const honoured = growthFactorHonoured();

describe('the CLI’s V8 settings', () => {
  it.skipIf(!honoured)(
    `keeps the young generation at its initial size through a run${honoured ? '' : ' — skipped: this Node’s V8 ignores --semi-space-growth-factor=1'}`,
    async () => {
      const [code, size] = await youngGenerationAfterRun();
      expect(code).toBe(0);
      expect(size).toBeLessThanOrEqual(SMALL);
    },
  );

  it('leaves it to V8 when NODE_OPTIONS sizes it (and the same run then grows it)', async () => {
    const [code, size] = await youngGenerationAfterRun({ NODE_OPTIONS: '--max-semi-space-size=16' });
    expect(code).toBe(0);
    expect(size).toBeGreaterThan(SMALL);
  });
});
