/**
 * The memory store survives `kill -9` in the middle of a write (docs/memory.md, "Storage"). A child process
 * adds large batches of incompressible memories in a loop; the parent watches the table's data folder
 * and freezes the child (SIGSTOP) the moment a batch's data file is being written, checks that this
 * batch is not committed yet (its data is on disk, its manifest is not), and kills it there (SIGKILL).
 * The store then reopens with every committed batch whole and nothing of the interrupted one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/memory/index.js';
import { REPO_ROOT, makeWorkdir, removeTempDirs } from './cli-harness.js';

/** Rows per write, and hex characters per row: ~8 MB a write, so writing its data file takes a while. */
const BATCH = 2000;
const HEX = 4000;
/** Batches the child may write while the parent waits to catch one mid-write. */
const MAX_BATCHES = 40;

afterEach(() => removeTempDirs());

const names = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

/** What is on disk: data files (with those still being written, and their bytes), committed versions. */
function onDisk(table: string) {
  const data = names(path.join(table, 'data'));
  const partial = data.filter((n) => !n.endsWith('.lance'));
  const bytes = (n: string) => {
    try {
      return fs.statSync(path.join(table, 'data', n)).size;
    } catch {
      return 0; // renamed into place meanwhile
    }
  };
  return {
    data: data.length,
    partialBytes: partial.reduce((sum, n) => sum + bytes(n), 0),
    partial: partial.length,
    manifests: names(path.join(table, '_versions')).filter((n) => n.endsWith('.manifest')).length,
  };
}

describe('memory store and kill -9', () => {
  it('a writer killed mid-write leaves every committed batch whole and none of the interrupted one', async () => {
    const dir = path.join(makeWorkdir(), 'store');
    const table = path.join(dir, 'memories.lance');
    const store = pathToFileURL(path.join(REPO_ROOT, 'dist', 'memory', 'lancedb-store.js')).href;
    const script = `
      const { randomBytes } = await import('node:crypto');
      const { openMemoryStore } = await import(${JSON.stringify(store)});
      const s = await openMemoryStore(process.argv[1], { embedder: null });
      for (let i = 0; i < ${MAX_BATCHES}; i++) {
        await s.add(Array.from({ length: ${BATCH} }, (_, j) => ({
          text: 'b' + i + ' r' + j + ' ' + randomBytes(${HEX / 2}).toString('hex') + ' end',
          kind: 'fact', runId: 'run_' + i, agentId: 'writer', scope: 'project', source: 'save_memory' })));
        process.stdout.write('committed ' + i + '\\n');
      }`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const seen: string[] = [];
    let atKill: ReturnType<typeof onDisk> | null = null;
    try {
      // The table (and its data folder) exists once the first batch is committed.
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => out.includes('committed 0') && resolve());
        void exited.then(() => reject(new Error(`the writer exited before its first commit: ${err}`)));
      });
      atKill = await new Promise<ReturnType<typeof onDisk>>((resolve, reject) => {
        const watcher = fs.watch(path.join(table, 'data'), () => {
          if (atKill !== null) return;
          child.kill('SIGSTOP');
          const now = onDisk(table);
          // Frozen mid-write: a batch's data file has bytes (being written, or written and waiting
          // for its commit) while no version commits it yet.
          if (now.data > now.manifests && (now.partial === 0 || now.partialBytes > 0)) {
            watcher.close();
            resolve(now);
          } else {
            seen.push(`${now.data} data files, ${now.manifests} versions`);
            child.kill('SIGCONT');
          }
        });
        void exited.then(() => {
          watcher.close();
          reject(
            new Error(
              `no write was caught in progress in ${MAX_BATCHES} batches (saw at each stop: ${seen.join('; ')}); writer: ${out}${err}`,
            ),
          );
        });
      });
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // Killed with a batch's data on disk (part of it, or all of it before its commit) and no version
    // committing it. (Measured: frozen with ~40 KB of the ~8 MB data file written.)
    expect(atKill.data).toBe(atKill.manifests + 1);
    expect(onDisk(table).data).toBe(atKill.data);

    const reopened = await openMemoryStore(dir, { embedder: null });
    try {
      const rows = await reopened.list();
      expect(await reopened.count()).toBe(rows.length);
      // Each committed version is one whole batch; the interrupted batch left no row behind.
      expect(rows.length).toBe(atKill.manifests * BATCH);
      const batches = new Map<number, number>();
      for (const row of rows) {
        const whole = new RegExp(`^b(\\d+) r(\\d+) [0-9a-f]{${HEX}} end$`).exec(row.text);
        expect(whole, `a half-written row: ${row.text.slice(0, 40)}…`).not.toBeNull();
        batches.set(Number(whole![1]), (batches.get(Number(whole![1])) ?? 0) + 1);
      }
      expect([...batches.keys()].sort((a, b) => a - b)).toEqual([...Array(atKill.manifests).keys()]);
      expect([...batches.values()].every((n) => n === BATCH)).toBe(true);
      expect(
        rows.every((r) => r.agentId === 'writer' && r.runId === `run_${r.text.split(' ')[0]!.slice(1)}`),
      ).toBe(true);
      // And it goes on: a write after the crash, and a search over everything.
      await reopened.add([
        {
          text: 'after the crash',
          kind: 'note',
          runId: 'r',
          agentId: null,
          scope: 'project',
          source: 'fallback',
        },
      ]);
      expect(await reopened.count()).toBe(rows.length + 1);
      expect((await reopened.search('crash', 3)).map((h) => h.text)).toEqual(['after the crash']);
    } finally {
      await reopened.close();
    }
  }, 240_000);
});
