/**
 * The memory store survives `kill -9` mid-write: a child process adds memories in a loop (five per
 * commit) and is killed; the store reopens, nothing is corrupt and every commit is whole.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/memory/index.js';
import { REPO_ROOT, makeWorkdir, removeTempDirs } from './cli-harness.js';

const BATCH = 5;

afterEach(() => removeTempDirs());

describe('memory store and kill -9', () => {
  it('reopens after its writer is killed mid-write, with a consistent count', async () => {
    const dir = path.join(makeWorkdir(), 'store');
    const store = pathToFileURL(path.join(REPO_ROOT, 'dist', 'memory', 'lancedb-store.js')).href;
    const script = `
      const { openMemoryStore } = await import(${JSON.stringify(store)});
      const s = await openMemoryStore(process.argv[1], { embedder: null });
      for (let i = 0; ; i++) {
        const batch = Array.from({ length: ${BATCH} }, (_, j) => ({
          text: 'fact ' + i + ' ' + j + ' about zebras and ' + 'x'.repeat(200), kind: 'fact',
          runId: 'run_' + i, scope: 'project', source: 'crash-test' }));
        await s.add(batch);
        process.stdout.write('committed ' + (i + 1) * ${BATCH} + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Killed once it has committed a few batches: the next write is then in flight.
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if ((out.match(/committed/g) ?? []).length >= 6) resolve();
      });
      child.on('exit', () => reject(new Error(`writer exited early: ${err}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    const lastCommitted = Math.max(...[...out.matchAll(/committed (\d+)/g)].map((m) => Number(m[1])));

    const reopened = await openMemoryStore(dir, { embedder: null });
    try {
      const count = await reopened.count();
      expect(count).toBeGreaterThanOrEqual(lastCommitted);
      expect(count % BATCH).toBe(0);
      expect((await reopened.list()).length).toBe(count);
      expect((await reopened.search('zebras', 3)).length).toBe(3);
      await reopened.add([
        { text: 'after the crash', kind: 'note', runId: 'r', scope: 'project', source: 't' },
      ]);
      expect(await reopened.count()).toBe(count + 1);
      expect(fs.existsSync(dir)).toBe(true);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
