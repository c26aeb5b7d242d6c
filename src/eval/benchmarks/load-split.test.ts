/**
 * Loading a split from a local stand-in of the datasets server: every row over pages of at most 100,
 * cached atomically and reused (offline too), the token only ever sent to Hugging Face, the gated set
 * refused without HF_TOKEN, and a broken or hostile server answered with one clear line, not a crash.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import {
  fakeEnv,
  FAKE_SHA,
  gsm8kRows,
  startFakeDatasetsServer,
  type FakeDatasetsServer,
} from './fake-datasets-server.test-support.js';
import { mayCarryHfToken } from './hf-client.js';
import { loadSplit, type LoadSplitOptions } from './load-split.js';

let server: FakeDatasetsServer;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-split-'));
  dirs.push(dir);
  return dir;
};
beforeAll(async () => {
  server = await startFakeDatasetsServer();
});
afterAll(() => server.close());
afterEach(() => {
  server.respond(null);
  server.requests.length = 0;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const GSM = { dataset: 'openai/gsm8k', config: 'main', split: 'test', title: 'GSM8K', gated: false };
const options = (cache: string, extra: Partial<LoadSplitOptions> = {}): LoadSplitOptions => ({
  ...GSM,
  env: fakeEnv(server, cache),
  ...extra,
});
const files = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
const rowsRequests = () => server.requests.filter((r) => r.path === '/rows');

describe('loadSplit', () => {
  it('fetches every row in pages of at most 100, caches it, and reuses the cache for the same revision', async () => {
    const rows = gsm8kRows(250);
    server.setSplit('openai/gsm8k', 'main', 'test', rows);
    const cache = tempDir();
    const progress: { receivedBytes: number; done: boolean }[] = [];
    const split = await loadSplit(options(cache, { onProgress: (p) => progress.push(p) }));
    expect(split.from).toBe('network');
    expect(split.revision).toBe(FAKE_SHA);
    expect(split.rows.map((r) => r.row_idx)).toEqual(rows.map((_, i) => i));
    expect(split.rows[249]!.row).toEqual(rows[249]);
    expect(rowsRequests().map((r) => [r.query.offset, r.query.length])).toEqual([
      ['0', '100'],
      ['100', '100'],
      ['200', '100'],
    ]);
    expect(progress.at(-1)).toMatchObject({ done: true });
    expect(progress.at(-1)!.receivedBytes).toBeGreaterThan(0);
    const cached = files(cache);
    expect(cached).toEqual([
      path.join(cache, 'massgen', 'benchmarks', 'openai--gsm8k', 'main', 'test', `${FAKE_SHA}.json`),
    ]);

    server.requests.length = 0;
    const again = await loadSplit(options(cache));
    expect(again.from).toBe('cache');
    expect(again.rows).toEqual(split.rows);
    // Only the revision was asked: no row was fetched again.
    expect(rowsRequests()).toHaveLength(0);
  });

  it('a new revision on the Hub is fetched again; offline, the newest cached copy is used and said so', async () => {
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(3));
    const cache = tempDir();
    await loadSplit(options(cache));
    const newer = 'f'.repeat(40);
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(4), newer);
    const updated = await loadSplit(options(cache));
    expect([updated.from, updated.revision, updated.rows.length]).toEqual(['network', newer, 4]);

    const offline = await startFakeDatasetsServer();
    const unreachable = { ...fakeEnv(offline, cache) };
    await offline.close();
    const notes: string[] = [];
    const split = await loadSplit({ ...GSM, env: unreachable, onNote: (n) => notes.push(n) });
    expect([split.from, split.revision, split.rows.length]).toEqual(['offline', newer, 4]);
    expect(notes.join('\n')).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): using the cached/,
    );
    // Without a cached copy, offline is one clear line.
    await expect(loadSplit({ ...GSM, env: { ...unreachable, XDG_CACHE_HOME: tempDir() } })).rejects.toThrow(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\) and openai\/gsm8k main\/test is not cached in /,
    );
  });

  it('HF_TOKEN is never sent to a server that is not Hugging Face, nor written to the cache', async () => {
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(120));
    const cache = tempDir();
    const token = 'hf_SECRETtoken1234567890';
    await loadSplit(options(cache, { env: { ...fakeEnv(server, cache), HF_TOKEN: token } }));
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
    for (const file of files(cache)) expect(readFileSync(file, 'utf8')).not.toContain(token);
  });

  it('sends the token only over https to huggingface.co and its subdomains', () => {
    expect(mayCarryHfToken('https://datasets-server.huggingface.co/rows?x=1')).toBe(true);
    expect(mayCarryHfToken('https://huggingface.co/api/datasets/a/b')).toBe(true);
    expect(mayCarryHfToken('http://huggingface.co/api')).toBe(false);
    expect(mayCarryHfToken('https://huggingface.co.evil.example/api')).toBe(false);
    expect(mayCarryHfToken('https://evilhuggingface.co/api')).toBe(false);
    expect(mayCarryHfToken('https://cas-bridge.xethub.hf.co/x')).toBe(false);
    expect(mayCarryHfToken('not a url')).toBe(false);
  });

  it('a gated set without HF_TOKEN is one line naming HF_TOKEN, and no row is asked for', async () => {
    server.setSplit('Idavidrein/gpqa', 'gpqa_diamond', 'train', [{ Question: 'q' }]);
    const cache = tempDir();
    const gated = {
      dataset: 'Idavidrein/gpqa',
      config: 'gpqa_diamond',
      split: 'train',
      title: 'GPQA-Diamond',
      gated: true,
      env: fakeEnv(server, cache),
    };
    const error = await loadSplit(gated).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'GPQA-Diamond (Idavidrein/gpqa) is gated on Hugging Face: set HF_TOKEN to an access token of an account that accepted its terms at https://huggingface.co/datasets/Idavidrein/gpqa',
    );
    expect(rowsRequests()).toHaveLength(0);
    // A refusal by the server names HF_TOKEN the same way.
    server.respond((r) =>
      r.path === '/rows' ? { status: 401, body: { error: 'Unauthorized' } } : undefined,
    );
    await expect(loadSplit({ ...gated, env: { ...gated.env, HF_TOKEN: 'hf_x' } })).rejects.toThrow(
      /is gated on Hugging Face: set HF_TOKEN/,
    );
  });

  it('an unknown split is a 404 naming --split', async () => {
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(2));
    const error = (await loadSplit(options(tempDir(), { split: 'nope' })).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(error.message).toMatch(
      /^openai\/gsm8k main\/nope rows 0–99 from .* was not found \(HTTP 404: The dataset does not exist/,
    );
    expect(error.hint).toMatch(/^check --split/);
    await expect(loadSplit(options(tempDir(), { split: '../../etc' }))).rejects.toThrow(
      '--split "../../etc": expected a split name such as test or validation',
    );
  });

  it('too many requests are retried after the Retry-After the server gives', async () => {
    server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(5));
    let refused = 0;
    server.respond((r) =>
      r.path === '/rows' && refused++ < 2
        ? { status: 429, headers: { 'retry-after': '0' }, body: { error: 'slow down' } }
        : undefined,
    );
    const split = await loadSplit(options(tempDir()));
    expect(split.rows).toHaveLength(5);
    expect(rowsRequests()).toHaveLength(3);
  });

  describe('a broken or hostile server: one clear line, nothing cached', () => {
    const cases: [
      string,
      (r: {
        path: string;
      }) => { status?: number; headers?: Record<string, string>; body: unknown } | undefined,
      RegExp,
    ][] = [
      [
        'a body over the size limit',
        (r) => (r.path === '/rows' ? { body: 'x'.repeat(17 * 2 ** 20) } : undefined),
        /^the answer for openai\/gsm8k main\/test rows 0–99 from .* is larger than 16 MiB: refused$/,
      ],
      [
        'rows of the wrong shape',
        (r) =>
          r.path === '/rows'
            ? { body: { rows: [{ row_idx: 'zero', row: 1 }], num_rows_total: 1 } }
            : undefined,
        /^the answer for .* is not a page of rows \(rows\.0\.row_idx: /,
      ],
      [
        'not JSON',
        (r) => (r.path === '/rows' ? { body: '<html>oops</html>' } : undefined),
        /^the answer for .* is not JSON: <html>oops<\/html>$/,
      ],
      [
        'a claim of millions of rows',
        (r) => (r.path === '/rows' ? { body: { rows: [], num_rows_total: 50_000_000 } } : undefined),
        /claims 50000000 rows \(more than 100000\)$/,
      ],
      [
        'rows out of place',
        (r) =>
          r.path === '/rows'
            ? {
                body: { rows: [{ row_idx: 7, row: { question: 'q', answer: '#### 1' } }], num_rows_total: 1 },
              }
            : undefined,
        /has row 7 where row 0 belongs$/,
      ],
      [
        'cells cut short',
        (r) =>
          r.path === '/rows'
            ? {
                body: {
                  rows: [{ row_idx: 0, row: { question: 'q' }, truncated_cells: ['question'] }],
                  num_rows_total: 1,
                },
              }
            : undefined,
        /cut row 0 short \(truncated cells\)/,
      ],
      [
        'a revision that is not a commit id',
        (r) => (r.path.startsWith('/api/') ? { body: { sha: '../../../etc/passwd' } } : undefined),
        /^the Hub's answer about openai\/gsm8k has no revision \(sha: not a commit id\)$/,
      ],
      [
        'a server error, quoted and cut short',
        (r) =>
          r.path === '/rows'
            ? {
                status: 500,
                headers: { 'retry-after': '0' },
                body: { error: `\x1b]0;pwned\x07${'e'.repeat(500)}` },
              }
            : undefined,
        // The words are kept as data here; the CLI makes them inert when it prints them.
        new RegExp(`failed with HTTP 500: ${'\x1b'}\\]0;pwned${'\x07'}e+…$`),
      ],
    ];
    it.each(cases)('%s', async (_, responder, message) => {
      server.setSplit('openai/gsm8k', 'main', 'test', gsm8kRows(3));
      server.respond(responder);
      const cache = tempDir();
      const error = await loadSplit(options(cache)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect(files(cache)).toEqual([]);
    });
  });
});
