import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  linesOf,
  listFiles,
  makeWorkdir,
  onlyLogDir,
  readEvents,
  removeTempDirs,
  runCli,
  writeConfig,
  agentEntry,
  freePort,
} from './cli-harness.js';
import { REPO_ROOT } from './cli-harness.js';

const TINY = path.resolve(REPO_ROOT, '..', 'shared', 'models', 'stories260K.gguf');
const hasTiny = fs.existsSync(TINY);
const DEFAULT_FILE = ['Qwen', 'Qwen2.5-1.5B-Instruct-GGUF', 'qwen2.5-1.5b-instruct-q4_k_m.gguf'];

afterEach(() => removeTempDirs());

/** A model cache holding the tiny model under the default model's name, so the default runs offline. */
function cacheWithDefaultModel(): string {
  const dir = makeWorkdir();
  const target = path.join(dir, ...DEFAULT_FILE);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(TINY, target);
  return dir;
}

// Real inference in child processes: generous per-test time on a busy 2-core machine.
describe.skipIf(!hasTiny)(
  `local model runs through the CLI${hasTiny ? '' : ' (skipped: ../shared/models/stories260K.gguf not found)'}`,
  { timeout: 180_000 },
  () => {
    it('--local-model PATH: two local agents complete a full run (the protocol holds even when the text is nonsense)', async () => {
      const cwd = makeWorkdir();
      const result = await runCli(['--local-model', TINY, '--no-display', 'Tell me a story about a cat.'], {
        cwd,
        timeoutMs: 120_000,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const events = readEvents(onlyLogDir(cwd));
      expect(events.find((e) => e.type === 'run.started')).toMatchObject({
        agents: [
          { agentId: 'local_a', backendType: 'local' },
          { agentId: 'local_b', backendType: 'local' },
        ],
      });
      // Every workflow call was well-formed: the grammar never lets the model misuse the tools. (Two
      // tiny models may still write the same answer by chance; that refusal is about content.)
      expect(
        events.filter(
          (e) => e.type === 'workflow.rejected' && !/identical to the current answer/.test(String(e.reason)),
        ),
      ).toEqual([]);
      expect(events.filter((e) => e.type === 'answer.submitted').length).toBeGreaterThanOrEqual(2);
      expect(events.find((e) => e.type === 'coordination.finished')).toMatchObject({ reason: 'consensus' });
      const out = linesOf(result.stdout);
      expect(out).toContainEqual(expect.stringMatching(/^ {2}total: \d+ in \/ \d+ out tokens — \$0\.0000$/));
    });

    it('massgen "question" with no config and no key runs the default local team from the model cache', async () => {
      const cwd = makeWorkdir();
      const modelDir = cacheWithDefaultModel();
      const result = await runCli(['--automation', 'Why is the sky blue?'], {
        cwd,
        env: { MASSGEN_MODEL_DIR: modelDir },
        timeoutMs: 120_000,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(linesOf(result.stdout)).toContainEqual(expect.stringMatching(/^WINNER: local_[ab]$/));
    });

    it('downloads an hf: model once, with progress, verified, and runs it', async () => {
      const bytes = fs.readFileSync(TINY);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const requests: string[] = [];
      const hub: Server = createServer((req, res) => {
        requests.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
        res.writeHead(200, { 'content-length': String(bytes.length), 'x-linked-etag': `"${sha}"` });
        res.end(bytes);
      });
      await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
      try {
        const cwd = makeWorkdir();
        const modelDir = makeWorkdir();
        writeConfig(cwd, {
          agents: ['a', 'b'].map((id) => ({
            id,
            backend: { type: 'local', model: 'hf:tiny/stories-GGUF/stories260K.gguf', max_tokens: 64 },
          })),
          orchestrator: { max_new_answers_per_agent: 1 },
        });
        const env = {
          MASSGEN_MODEL_DIR: modelDir,
          MASSGEN_HF_ENDPOINT: `http://127.0.0.1:${(hub.address() as AddressInfo).port}`,
        };
        const first = await runCli(['--config', 'config.yaml', '--automation', 'q'], {
          cwd,
          env,
          timeoutMs: 120_000,
        });
        expect(first.code).toBe(0);
        expect(first.stderr).toMatch(/Downloaded stories260K\.gguf/);
        // A probe (HEAD: size, sha256, reachability), then node-llama-cpp's download.
        const file = '/tiny/stories-GGUF/resolve/main/stories260K.gguf';
        expect(requests[0]).toBe(`HEAD ${file}`);
        expect(new Set(requests.slice(1))).toEqual(new Set([`GET ${file}`]));
        expect(listFiles(modelDir)).toEqual(['tiny/stories-GGUF/stories260K.gguf']);
        const downloadRequests = requests.length;
        // Second run: from the cache, no request.
        const second = await runCli(['--config', 'config.yaml', '--automation', 'q'], {
          cwd,
          env,
          timeoutMs: 120_000,
        });
        expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
        expect(requests).toHaveLength(downloadRequests);
      } finally {
        await new Promise((resolve) => hub.close(resolve));
      }
    });

    it('a context too small for the prompt is one clear line, exit 2', async () => {
      const cwd = makeWorkdir();
      writeConfig(cwd, {
        agents: ['a', 'b'].map((id) => ({ id, backend: { type: 'local', model: TINY, context_size: 128 } })),
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], {
        cwd,
        timeoutMs: 60_000,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^massgen: run failed: All agents failed — a: local: the prompt needs [\d,]+ tokens \(plus \d+ for the reply\) but the context holds \d+ — raise backend\.context_size;/m,
      );
    });
  },
);

describe('local model: bad input and no network', () => {
  it('no network and no cached model: could not start (exit 1, as an offline cloud start); one line saying how to get a model or use a key; nothing half-written', async () => {
    const cwd = makeWorkdir();
    const modelDir = makeWorkdir();
    const result = await runCli(['Why is the sky blue?'], {
      cwd,
      env: { MASSGEN_MODEL_DIR: modelDir, MASSGEN_HF_ENDPOINT: 'http://127.0.0.1:9' },
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    const errors = linesOf(result.stderr).filter((l) => l.startsWith('massgen: error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /cannot download the model hf:Qwen\/Qwen2\.5-1\.5B-Instruct-GGUF\/qwen2\.5-1\.5b-instruct-q4_k_m\.gguf/,
    );
    expect(errors[0]).toContain('--local-model /path/to/model.gguf');
    expect(errors[0]).toContain('OPENAI_API_KEY');
    expect(listFiles(modelDir).filter((f) => f.includes('partial'))).toEqual([]);
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);

    // An offline cloud start (nothing answers at its base_url) could not start either: the same code.
    const cloudDir = makeWorkdir();
    writeConfig(cloudDir, {
      agents: [
        agentEntry('solo', `http://127.0.0.1:${await freePort()}/v1`, { backend: { max_retries: 0 } }),
      ],
    });
    const cloud = await runCli(['--config', 'config.yaml', '--no-display', 'q'], {
      cwd: cloudDir,
      timeoutMs: 30_000,
    });
    expect(cloud.stderr).toContain('the run could not start');
    expect(cloud.code).toBe(result.code);
  });

  it.each([
    [
      'a missing file',
      (dir: string) => path.join(dir, 'nope.gguf'),
      /^massgen: error: model file not found: .*nope\.gguf$/,
    ],
    [
      'a file that is not GGUF',
      (dir: string) => {
        const file = path.join(dir, 'notes.gguf');
        fs.writeFileSync(file, 'just some text, not a model\n');
        return file;
      },
      /^massgen: error: not a GGUF model file: .*notes\.gguf \(it starts with "just some text, "\)$/,
    ],
  ])('%s: exit 1 with one clear line', async (_name, make, expected) => {
    const cwd = makeWorkdir();
    const result = await runCli(['--local-model', make(cwd), 'q'], { cwd, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)[0]).toMatch(expected);
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  });

  it.skipIf(!hasTiny)('a truncated GGUF: exit 1 naming the file', async () => {
    const cwd = makeWorkdir();
    const file = path.join(cwd, 'cut.gguf');
    fs.writeFileSync(file, fs.readFileSync(TINY).subarray(0, 100_000));
    const result = await runCli(['--local-model', file, 'q'], { cwd, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)[0]).toMatch(/^massgen: error: corrupt GGUF file: .*cut\.gguf \(truncated/);
  });
});
