import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DownloadProgress } from '../../types/backend.js';
import { ConfigError, ProviderError } from '../../types/errors.js';
import {
  buildGguf,
  REAL_MODEL,
  REAL_MODEL_SKIPPED,
  realModelPresent,
  sha256,
} from './gguf-fixture.test-support.js';
import { startFakeHub, type FakeHub, type HubFile } from './hub-server.test-support.js';
import { ensureModelFile } from './model-files.js';

const FILE_PATH = '/user/repo/resolve/main/tiny.gguf';
const model = buildGguf({
  tensors: [
    { name: 'token_embd.weight', dimensions: [64, 256] },
    { name: 'output.weight', dimensions: [64, 256] },
  ],
});

let dir: string;
let modelDir: string;
let hub: FakeHub | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'massgen-model-files-'));
  modelDir = join(dir, 'models');
});
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function serve(files: Record<string, HubFile>): Promise<FakeHub> {
  hub = await startFakeHub(files);
  return hub;
}

/** Every file under the model folder, relative to it. */
async function cacheContents(): Promise<string[]> {
  const entries = await readdir(modelDir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(modelDir.length + 1));
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const result = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(result instanceof Error)) throw new Error('expected a rejection');
  return result;
}

describe('ensureModelFile with a hub reference (node-llama-cpp downloads, massgen probes and checks)', () => {
  it('probes, downloads into the cache with progress, then reuses the cache without a request', async () => {
    const { endpoint, requests } = await serve({
      [FILE_PATH]: { body: model, chunkBytes: 8192, chunkDelayMs: 40 },
    });
    const progress: DownloadProgress[] = [];
    const path = await ensureModelFile('hf:user/repo/tiny.gguf', {
      modelDir,
      hubEndpoint: endpoint,
      onProgress: (p) => progress.push(p),
    });
    expect(path).toBe(join(modelDir, 'user/repo/tiny.gguf'));
    expect(sha256(await readFile(path))).toBe(sha256(model));
    expect(await cacheContents()).toEqual(['user/repo/tiny.gguf']);
    expect(requests[0]).toEqual({ method: 'HEAD', path: FILE_PATH });
    expect(requests.slice(1).every((r) => r.method === 'GET' && r.path === FILE_PATH)).toBe(true);

    expect(progress.length).toBeGreaterThanOrEqual(3);
    const received = progress.map((p) => p.receivedBytes);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    expect(progress.slice(0, -1).every((p) => !p.done && p.totalBytes === model.length)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ file: 'tiny.gguf', done: true, receivedBytes: model.length });

    const before = requests.length;
    const again = await ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint });
    expect(again).toBe(path);
    expect(requests.length).toBe(before);
  });

  it("sends the run's HF_TOKEN to the hub only, never this process's", async () => {
    const previous = process.env['HF_TOKEN'];
    process.env['HF_TOKEN'] = 'process-token-must-not-be-sent';
    try {
      const hub = await serve({ [FILE_PATH]: { body: model, redirect: true } });
      await ensureModelFile('hf:user/repo/tiny.gguf', {
        modelDir,
        hubEndpoint: hub.endpoint,
        hubToken: 'run-token',
      });
      const auth = hub.requests.map((r) => r.authorization);
      expect(auth.filter((a) => a !== undefined).length).toBeGreaterThan(0);
      expect(new Set(auth.filter((a) => a !== undefined))).toEqual(new Set(['Bearer run-token']));
      await rm(modelDir, { recursive: true, force: true });
      const before = hub.requests.length;
      await ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: hub.endpoint });
      expect(hub.requests.slice(before).every((r) => r.authorization === undefined)).toBe(true);
    } finally {
      if (previous === undefined) delete process.env['HF_TOKEN'];
      else process.env['HF_TOKEN'] = previous;
    }
  });

  it('follows the hub redirect and checks the hash the redirect announced', async () => {
    const hub = await serve({ [FILE_PATH]: { body: model, redirect: true } });
    const path = await ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: hub.endpoint });
    expect(hub.paths().slice(0, 2)).toEqual([FILE_PATH, `/cdn${FILE_PATH}`]);
    expect(hub.paths()).toContain(`/cdn${FILE_PATH}`);
    expect(await readFile(path)).toEqual(model);
  });

  it('accepts a file whose server announces no hash (size and header still checked)', async () => {
    const { endpoint } = await serve({ [FILE_PATH]: { body: model, sha256: null, ranges: false } });
    await expect(
      ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint }),
    ).resolves.toBe(join(modelDir, 'user/repo/tiny.gguf'));
  });

  it('rejects a checksum mismatch and leaves nothing in the cache', async () => {
    const wrong = 'ab'.repeat(32);
    for (const file of [
      { body: model, sha256: wrong },
      { body: model, sha256: wrong, hashHeader: 'etag' as const },
      { body: model, sha256: wrong, redirect: true },
    ]) {
      const { endpoint } = await serve({ [FILE_PATH]: file });
      const error = await failure(
        ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint }),
      );
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.message).toBe(
        `downloaded model failed its checksum (tiny.gguf): expected ${wrong} got ${sha256(model)}`,
      );
      expect(await cacheContents()).toEqual([]);
      await hub?.close();
    }
  });

  it('rejects a download that is not a GGUF file', async () => {
    const html = Buffer.from('<!DOCTYPE html><html>captive portal</html>');
    const { endpoint } = await serve({ [FILE_PATH]: { body: html } });
    const error = await failure(
      ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint }),
    );
    expect(error.message).toBe(
      'downloaded file is not a usable GGUF model (tiny.gguf): it starts with "<!DOCTYPE html><"',
    );
    expect(await cacheContents()).toEqual([]);
  });

  it('says plainly when the file is not on the hub, before starting a download', async () => {
    const hub = await serve({});
    const error = await failure(
      ensureModelFile('hf:user/repo/missing.gguf', { modelDir, hubEndpoint: hub.endpoint }),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 404, retryable: false });
    expect(error.message).toBe(
      `model not found on the hub: ${hub.endpoint}/user/repo/resolve/main/missing.gguf`,
    );
    expect(hub.requests).toEqual([{ method: 'HEAD', path: '/user/repo/resolve/main/missing.gguf' }]);
  });

  it('explains what to do offline when the hub cannot be reached', async () => {
    const endpoint = await freedPortUrl();
    const error = await failure(
      ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint }),
    );
    const cached = join(modelDir, 'user/repo/tiny.gguf');
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^cannot download the model hf:user\/repo\/tiny\.gguf \(no network: .*ECONNREFUSED/,
    );
    expect(error.message).toContain(
      `download ${endpoint}/user/repo/resolve/main/tiny.gguf yourself and save it as ${cached}`,
    );
    expect(error.message).toContain('massgen --local-model /path/to/model.gguf "question"');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).not.toContain('\n');
    expect(await cacheContents()).toEqual([]);
  });

  it('gives up on a stalled transfer and on one cut again and again, leaving no file in the cache', async () => {
    const { endpoint } = await serve({
      [FILE_PATH]: { body: model, chunkBytes: 4096, cutAfterBytes: 20_000 },
      '/user/repo/resolve/main/stall.gguf': { body: model, chunkBytes: 4096, stallAfterBytes: 8192 },
    });
    for (const name of ['tiny', 'stall']) {
      const error = await failure(
        ensureModelFile(`hf:user/repo/${name}.gguf`, { modelDir, hubEndpoint: endpoint, idleTimeoutMs: 300 }),
      );
      expect(error.message).toMatch(
        new RegExp(`^cannot download the model hf:user/repo/${name}\\.gguf \\(no data for 0\\.3 s\\)`),
      );
    }
    expect((await cacheContents()).filter((f) => f.endsWith('.gguf'))).toEqual([]);
  });

  it('resumes an interrupted download from the part already on disk', async () => {
    // Three of the library's 5 MiB chunks: the first arrives, the others stall. The transfer is cut once
    // the first chunk is on disk (an event, not the idle timer: on a busy machine the library may not
    // have written anything within a short idle timeout, and then there is nothing to resume).
    const big = buildGguf({ tensors: [{ name: 'token_embd.weight', dimensions: [1024, 3072] }] });
    const chunk = 5 * 1024 * 1024;
    const first = await serve({
      [FILE_PATH]: { body: big, stallAfterBytes: 1000, faultyFrom: (from) => from !== 0 },
    });
    const part = join(modelDir, 'user/repo/tiny.gguf.partial.ipull');
    const controller = new AbortController();
    const cut = new Error('cut by the test once the first chunk is on disk');
    const download = failure(
      ensureModelFile('hf:user/repo/tiny.gguf', {
        modelDir,
        hubEndpoint: first.endpoint,
        signal: controller.signal,
      }),
    );
    let seen = 'no part file';
    await vi.waitFor(
      async () => {
        const bytes = await stat(part).then(
          (s) => s.size,
          () => -1,
        );
        seen = bytes < 0 ? 'no part file' : `${bytes} bytes in the part file`;
        if (bytes < chunk)
          throw new Error(`waiting for the first ${chunk}-byte chunk on disk; seen: ${seen}`);
      },
      { timeout: 60_000, interval: 50 },
    );
    controller.abort(cut);
    expect(await download).toBe(cut);
    expect(await cacheContents(), seen).toEqual(['user/repo/tiny.gguf.partial.ipull']);
    await first.close();

    const second = await serve({ [FILE_PATH]: { body: big } });
    const path = await ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: second.endpoint });
    expect(sha256(await readFile(path))).toBe(sha256(big));
    const ranged = second.requests.filter((r) => r.from !== undefined);
    expect(ranged.length).toBeGreaterThan(0);
    expect(ranged.every((r) => r.from! >= chunk)).toBe(true);
    expect(await cacheContents()).toEqual(['user/repo/tiny.gguf']);
  });

  it('stops when aborted mid-download, rejecting with the reason', async () => {
    const { endpoint } = await serve({ [FILE_PATH]: { body: model, chunkBytes: 2048, chunkDelayMs: 50 } });
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    const error = await failure(
      ensureModelFile('hf:user/repo/tiny.gguf', {
        modelDir,
        hubEndpoint: endpoint,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.receivedBytes >= 4096) controller.abort(reason);
        },
      }),
    );
    expect(error).toBe(reason);
    expect((await cacheContents()).filter((f) => f.endsWith('.gguf'))).toEqual([]);
  });

  it('downloads again over a damaged cached file', async () => {
    const { endpoint } = await serve({ [FILE_PATH]: { body: model } });
    const cached = join(modelDir, 'user/repo/tiny.gguf');
    await mkdir(join(modelDir, 'user/repo'), { recursive: true });
    await writeFile(cached, model.subarray(0, 1000));
    await ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: endpoint });
    expect(await readFile(cached)).toEqual(model);
    expect(await cacheContents()).toEqual(['user/repo/tiny.gguf']);
  });

  it('refuses a bad hub endpoint and split models before any request', async () => {
    const badEndpoint = await failure(
      ensureModelFile('hf:user/repo/tiny.gguf', { modelDir, hubEndpoint: 'ftp://x' }),
    );
    expect(badEndpoint).toBeInstanceOf(ConfigError);
    expect(badEndpoint.message).toBe('invalid model hub URL: ftp://x');
    await expect(
      ensureModelFile('hf:user/repo/big-00001-of-00003.gguf', {
        modelDir,
        hubEndpoint: 'http://127.0.0.1:9',
      }),
    ).rejects.toThrow(/is split into 3 files/);
  });

  it.skipIf(!realModelPresent)(
    `downloads the real stories260K model and checks its sha256${REAL_MODEL_SKIPPED}`,
    async () => {
      const body = await readFile(REAL_MODEL.path);
      const { endpoint } = await serve({
        '/karpathy/tinyllamas/resolve/main/stories260K.gguf': {
          body,
          sha256: REAL_MODEL.sha256,
          redirect: true,
        },
      });
      const path = await ensureModelFile(
        'https://huggingface.co/karpathy/tinyllamas/blob/main/stories260K.gguf',
        {
          modelDir,
          hubEndpoint: endpoint,
        },
      );
      expect(path).toBe(join(modelDir, 'karpathy/tinyllamas/stories260K.gguf'));
      expect((await readFile(path)).length).toBe(REAL_MODEL.bytes);
    },
  );
});

describe('ensureModelFile with a local path', () => {
  it('returns the absolute path of a valid GGUF file', async () => {
    const path = join(dir, 'ok.gguf');
    await writeFile(path, buildGguf());
    await expect(ensureModelFile(path, { modelDir, hubEndpoint: 'http://127.0.0.1:9' })).resolves.toBe(path);
    await expect(ensureModelFile(`file://${path}`, { modelDir, hubEndpoint: 'unused' })).resolves.toBe(path);
  });

  it('gives one-line ConfigErrors for missing, folder, non-GGUF and truncated files', async () => {
    const options = { modelDir, hubEndpoint: 'http://127.0.0.1:9' };
    const missing = join(dir, 'nope.gguf');
    const text = join(dir, 'x.gguf');
    const truncated = join(dir, 'cut.gguf');
    await writeFile(text, 'hello, I am not a model\n');
    await writeFile(truncated, model.subarray(0, 60_000));
    const expectations: [string, string][] = [
      [missing, `model file not found: ${missing}`],
      [dir, `model path is a folder, not a file: ${dir}`],
      [text, `not a GGUF model file: ${text} (it starts with "hello, I am not ")`],
      [
        truncated,
        `corrupt GGUF file: ${truncated} (truncated at 60000 bytes: its tensor data runs to at least 65985 bytes (a download cut short?))`,
      ],
    ];
    for (const [path, message] of expectations) {
      const error = await failure(ensureModelFile(path, options));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toBe(message);
      expect((error as ConfigError).hint).toBeTruthy();
    }
  });

  it('expands ~/ to the home folder', async () => {
    const error = await failure(
      ensureModelFile('~/massgen-surely-absent-dir/m.gguf', { modelDir, hubEndpoint: 'http://127.0.0.1:9' }),
    );
    expect(error.message).toBe(
      `model file not found: ${join(homedir(), 'massgen-surely-absent-dir/m.gguf')}`,
    );
  });

  it.skipIf(!realModelPresent)(`accepts the real stories260K model${REAL_MODEL_SKIPPED}`, async () => {
    await expect(ensureModelFile(REAL_MODEL.path, { modelDir, hubEndpoint: 'unused' })).resolves.toBe(
      REAL_MODEL.path,
    );
  });
});

/** A URL on a port that was just freed, so connecting to it is refused. */
async function freedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
