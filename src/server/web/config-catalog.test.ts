import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../../test/support/wait.js';
import { ConfigCatalog, LOCAL_DEFAULT_REF, type ConfigListing } from './config-catalog.js';
import { ServerProbes } from './config-needs.js';
import { startWebServer, type WebServer } from './web-server.js';

/**
 * Honest labels in `GET /api/configs` (docs/web.md), over real HTTP on loopback: a local server that
 * does not answer at its base_url, a local model that is not downloaded (with its size), a model file
 * that is not there — and the config `POST /api/runs` uses when it names none.
 */
const DEFAULT_MODEL = ['Qwen', 'Qwen2.5-1.5B-Instruct-GGUF', 'qwen2.5-1.5b-instruct-q4_k_m.gguf'];
let dir: string;
/** An OpenAI-compatible server's model list, counting the requests it answers. */
let up: Server;
let upUrl: string;
let upRequests = 0;
/** A port that answers nothing (bound, then released). */
let downUrl: string;
const servers: WebServer[] = [];

const listen = (server: Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );

beforeAll(async () => {
  up = createServer((request, response) => {
    upRequests++;
    response.writeHead(request.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
    response.end('{"data":[]}');
  });
  upUrl = `http://127.0.0.1:${await listen(up)}/v1`;
  const closed = createServer();
  downUrl = `http://127.0.0.1:${await listen(closed)}/v1`;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  await new Promise((resolve) => up.close(resolve));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-labels-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const find = (listing: readonly ConfigListing[], ref: string) => {
  const entry = listing.find((c) => c.ref === ref);
  if (!entry) throw new Error(`${ref} is not listed: ${listing.map((c) => c.ref).join(', ')}`);
  return entry;
};

describe('GET /api/configs says what a config needs on this machine', () => {
  it('a local server that does not answer at its base_url: not runnable, naming the URL and how to start it', async () => {
    const cwd = folder({
      'down.yaml': `agent: { id: llama, backend: { type: ollama, model: llama3.2, base_url: "${downUrl}" } }\n`,
      'up.yaml': `agent: { id: qwen, backend: { type: vllm, model: Qwen/Qwen3-8B, base_url: "${upUrl}" } }\n`,
    });
    // A generous bound: the server answering is in this process, whatever the machine's load.
    const probes = new ServerProbes({ timeoutMs: 20_000, ttlMs: 60_000 });
    const listing = await new ConfigCatalog({ cwd, env: {}, home: cwd, probes }).refresh();
    expect(find(listing, 'down.yaml')).toMatchObject({
      runnable: false,
      missing: [],
      needs: [
        {
          kind: 'server',
          agents: ['llama'],
          summary: `no server at ${downUrl.replace('http://', '')}`,
          message: `llama: no ollama server answers at ${downUrl} — start it: ollama serve (and ollama pull llama3.2)`,
        },
      ],
    });
    expect(find(listing, 'up.yaml')).toMatchObject({ runnable: true, missing: [] });
    expect(find(listing, 'up.yaml').needs).toBeUndefined();
  });

  it('a server that accepts but never answers is "not answering" once the bounded probe gives up', async () => {
    const silent = createServer(() => undefined);
    const port = await listen(silent);
    try {
      const cwd = folder({
        'hang.yaml': `agent: { id: s, backend: { type: sglang, model: m, base_url: "http://127.0.0.1:${port}/v1" } }\n`,
      });
      const probes = new ServerProbes({ timeoutMs: 300, ttlMs: 60_000 });
      const listing = await new ConfigCatalog({ cwd, env: {}, home: cwd, probes }).refresh();
      expect(find(listing, 'hang.yaml')).toMatchObject({ runnable: false, needs: [{ kind: 'server' }] });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('answers are kept briefly: one probe per address however many listings ask, then asked again', async () => {
    const cwd = folder({
      'one.yaml': `agent: { id: a, backend: { type: vllm, model: m, base_url: "${upUrl}" } }\n`,
      'two.yaml': `agent: { id: b, backend: { type: lmstudio, model: m, base_url: "${upUrl}" } }\n`,
    });
    const before = upRequests;
    const kept = new ConfigCatalog({
      cwd,
      env: {},
      home: cwd,
      probes: new ServerProbes({ timeoutMs: 20_000, ttlMs: 60_000 }),
    });
    await kept.refresh();
    await kept.refresh();
    await kept.refresh();
    expect(upRequests - before).toBe(1);
    const fresh = new ConfigCatalog({
      cwd,
      env: {},
      home: cwd,
      probes: new ServerProbes({ timeoutMs: 20_000, ttlMs: 0 }),
    });
    const asked = upRequests;
    await fresh.refresh();
    await fresh.refresh();
    expect(upRequests - asked).toBe(2);
  });

  it('a local model not downloaded: not runnable, saying it downloads 1.1 GB first (and from where, to where); ready once the file is there', async () => {
    const cwd = folder({
      'local.yaml':
        'agents:\n  - { id: a, backend: { type: local, model: "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf" } }\n  - { id: b, backend: { type: local, model: "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf" } }\n',
    });
    fs.writeFileSync(
      path.join(cwd, 'missing.yaml'),
      `agent: { id: m, backend: { type: local, model: ${path.join(cwd, 'nope.gguf')} } }\n`,
    );
    const models = path.join(cwd, 'models');
    const env = { MASSGEN_MODEL_DIR: models, MASSGEN_HF_ENDPOINT: 'http://127.0.0.1:1' };
    const catalog = new ConfigCatalog({ cwd, env, home: cwd });
    const file = path.join(models, ...DEFAULT_MODEL);
    expect(find(await catalog.refresh(), 'local.yaml')).toMatchObject({
      runnable: false,
      needs: [
        {
          kind: 'model',
          agents: ['a', 'b'],
          bytes: 1_117_320_736,
          summary: 'needs a 1.1 GB model download',
          message: `a, b: the model hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf is not downloaded yet — the first run downloads it (1.1 GB) from http://127.0.0.1:1, which needs the network; or save the file as ${file}`,
        },
      ],
    });
    expect(find(await catalog.refresh(), 'missing.yaml')).toMatchObject({
      runnable: false,
      needs: [
        {
          kind: 'model',
          summary: 'model file not found',
          message: `m: model file not found: ${path.join(cwd, 'nope.gguf')}`,
        },
      ],
    });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'GGUF');
    expect(find(await catalog.refresh(), 'local.yaml')).toMatchObject({ runnable: true });
    expect(find(await catalog.refresh(), 'local.yaml').needs).toBeUndefined();
  });

  it('the bundled local pair with no model and no network is not runnable (it used to say it was)', async () => {
    const cwd = folder({});
    const env = { MASSGEN_MODEL_DIR: path.join(cwd, 'models'), MASSGEN_HF_ENDPOINT: 'http://127.0.0.1:1' };
    const pair = find(await new ConfigCatalog({ cwd, env, home: cwd }).refresh(), LOCAL_DEFAULT_REF);
    expect(pair).toMatchObject({
      runnable: false,
      needs: [{ kind: 'model', summary: 'needs a 1.1 GB model download' }],
    });
  });
});

describe('the default config: the one the CLI would use here', () => {
  it('--config first, then the folder’s .massgen/config.yaml, then the user’s, then (no key) the local pair; none with a key and nothing configured', async () => {
    const team = `agent: { id: a, backend: { type: vllm, model: m, base_url: "${upUrl}" } }\n`;
    const cwd = folder({
      'flag.yaml': team,
      '.massgen/config.yaml': team,
      'home/.config/massgen/config.yaml': team,
    });
    const home = path.join(cwd, 'home');
    const defaultOf = async (options: { flag?: string; env?: Record<string, string>; project?: boolean }) =>
      (
        await new ConfigCatalog({
          cwd,
          env: options.env ?? {},
          home,
          ...(options.flag ? { flag: options.flag } : {}),
          project: () => options.project ?? true,
        }).refresh()
      )
        .filter((c) => c.default)
        .map((c) => c.ref);
    expect(await defaultOf({ flag: 'flag.yaml' })).toEqual(['flag.yaml']);
    expect(await defaultOf({})).toEqual(['.massgen/config.yaml']);
    // An untrusted folder's config is never offered, so never the default.
    const user = path.join(home, '.config', 'massgen', 'config.yaml');
    expect(await defaultOf({ project: false })).toEqual([user]);
    fs.rmSync(user);
    expect(await defaultOf({ project: false })).toEqual([LOCAL_DEFAULT_REF]);
    expect(await defaultOf({ project: false, env: { OPENAI_API_KEY: 'sk-x' } })).toEqual([]);
  });

  it('POST /api/runs without config runs the default (GET /api/configs marks it); with none, 400 saying what to send', async () => {
    const cwd = folder({
      '.massgen/config.yaml':
        'agent: { id: solo, backend: { type: chatcompletion, model: m, base_url: "http://127.0.0.1:1/v1" } }\n',
    });
    const start = async (env: Record<string, string>) => {
      const server = await startWebServer({ cwd, env, home: cwd, port: 0, staticDir: cwd });
      servers.push(server);
      return (route: string, body?: unknown) =>
        fetch(`http://127.0.0.1:${server.port}${route}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            authorization: `Bearer ${server.authToken}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    };
    const api = await start({});
    const listed = (await api('/api/configs')).body as unknown as ConfigListing[];
    expect(listed.filter((c) => c.default).map((c) => c.ref)).toEqual(['.massgen/config.yaml']);
    const started = await api('/api/runs', { question: 'Q?' });
    expect(started.status).toBe(201);
    // The run starts after the 201: on a busy machine its first event may not be there yet.
    type Started = { type: string; agents?: { agentId: string }[] };
    let run: Started | undefined;
    let seen: unknown;
    await waitUntil(
      async () => {
        seen = (await api(`/api/runs/${String(started.body.id)}`)).body.events;
        run = (seen as Started[]).find((e) => e.type === 'run.started');
        return run !== undefined;
      },
      'the run started by POST /api/runs to log run.started',
      { seen: () => JSON.stringify(seen).slice(0, 2_000) },
    );
    expect(run?.agents?.map((a) => a.agentId)).toEqual(['solo']);

    fs.rmSync(path.join(cwd, '.massgen', 'config.yaml'));
    const keyed = await start({ OPENAI_API_KEY: 'sk-x' });
    expect(await keyed('/api/runs', { question: 'Q?' })).toEqual({
      status: 400,
      body: {
        error:
          'no config given and none configured here: send config (one of GET /api/configs), or start massgen --web --config FILE',
      },
    });
  });
});
