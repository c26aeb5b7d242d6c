import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeChatRequestBody,
  type FakeOpenAIServer,
  type FakeResponse,
} from '../../testing/fake-openai-server.js';
import { samplePng } from '../../testing/fake-server/media-samples.js';
import { waitUntil } from '../../../test/support/wait.js';
import { runEventsUntilDone } from './raw-http.test-support.js';
import { startWebServer, type WebServer } from './web-server.js';

/**
 * The web UI's uploads over real HTTP, with real runs on the fake model: a file is written only for a
 * run whose config passed (a refused start leaves nothing), readable by its owner alone (0600 in a
 * 0700 folder), and removed with the run — when the server forgets it, and when the server stops.
 */
let fake: FakeOpenAIServer;
let cwd: string;
const servers: WebServer[] = [];
const uploads = () => path.join(cwd, '.massgen', 'uploads');

/** Every file under the uploads folder (relative paths). */
const storedFiles = (): string[] =>
  fs.existsSync(uploads())
    ? fs
        .readdirSync(uploads(), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.relative(uploads(), path.join(e.parentPath, e.name)))
    : [];

const tools = (body: FakeChatRequestBody) => (body.tools ?? []).map((t) => t.function.name);
/** The one agent answers, then votes for its answer, then presents. */
function converge(body: FakeChatRequestBody): FakeResponse {
  if (!tools(body).includes('new_answer')) return { text: 'Final.' };
  if (JSON.stringify(body.tools).includes('agent1'))
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
  return { toolCalls: [{ name: 'new_answer', arguments: { content: 'An answer.' } }] };
}

beforeAll(async () => {
  fake = await startFakeOpenAIServer();
  fake.setHandler(converge);
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-uploads-'));
  fs.writeFileSync(
    path.join(cwd, 'team.yaml'),
    `agents:\n  - id: a\n    backend: { type: chatcompletion, model: m, base_url: "${fake.url}" }\n`,
  );
  fs.writeFileSync(path.join(cwd, 'broken.yaml'), 'agents:\n  - id: a\n    backend: { type: nope }\n');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  fs.rmSync(uploads(), { recursive: true, force: true });
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

async function start(keepFinishedRuns?: number) {
  const server = await startWebServer({
    cwd,
    env: {},
    port: 0,
    staticDir: cwd,
    ...(keepFinishedRuns === undefined ? {} : { keepFinishedRuns }),
  });
  servers.push(server);
  const json = async (route: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${server.authToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** Starts a run with `png` attached and waits until it is over. */
  const run = async (png: Buffer, config = 'team.yaml') => {
    const started = await json('/api/runs', {
      question: 'What is in the picture?',
      config,
      attachments: [{ name: '写真.png', data: png.toString('base64') }],
    });
    if (started.status !== 201) return { ...started, events: [] };
    return { ...started, events: await eventsUntilDone(started.body.id as string) };
  };
  const eventsUntilDone = (runId: string) => runEventsUntilDone(server, runId);
  const media = (runId: string, sha256: string) =>
    fetch(`http://127.0.0.1:${server.port}/api/runs/${runId}/media?sha256=${sha256}`, {
      headers: { authorization: `Bearer ${server.authToken}` },
    });
  return { server, json, run, media };
}

// Another account on the machine (`nobody`, through setpriv when the tests run as root; root reads
// every file): it must not read an upload even where the project folder is open to everyone.
const asRoot = process.getuid?.() === 0;
const asNobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
const nobodyCanRun = asRoot && spawnSync(asNobody[0]!, [...asNobody.slice(1), 'true']).status === 0;

describe('uploads of the web UI', () => {
  it('a start refused for its config stores nothing', async () => {
    const { run } = await start();
    const refused = await run(samplePng(4, 4, [10, 20, 30]), 'broken.yaml');
    expect(refused.status).toBe(400);
    expect(storedFiles()).toEqual([]);
  });

  it('are stored 0600 in a 0700 folder of the run, and removed when the server forgets the run', async () => {
    const { json, run, media } = await start(1);
    const first = samplePng(4, 4, [200, 0, 0]);
    const one = await run(first);
    expect(one.status).toBe(201);
    const [file] = storedFiles();
    expect(file).toMatch(/^run-[^/]+\/[0-9a-f]{64}\/写真\.png$/);
    const absolute = path.join(uploads(), file!);
    expect(fs.readFileSync(absolute).equals(first)).toBe(true);
    expect(fs.statSync(absolute).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(absolute)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(path.dirname(absolute))).mode & 0o777).toBe(0o700);
    // The run's media route serves it under its name (RFC 5987 filename*, with an ASCII stand-in).
    const id = one.body.id as string;
    const attached = one.events.find((e) => e.type === 'run.started')?.attachments?.[0];
    expect(attached?.name).toBe('写真.png');
    const served = await media(id, attached!.sha256);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-disposition')).toBe(
      `inline; filename="__.png"; filename*=UTF-8''%E5%86%99%E7%9C%9F.png`,
    );
    expect(Buffer.from(await served.arrayBuffer()).equals(first)).toBe(true);

    // A second run: the server keeps one finished run, so the first is forgotten with its upload.
    const two = await run(samplePng(4, 4, [0, 200, 0]));
    expect(two.status).toBe(201);
    await waitUntil(() => !fs.existsSync(absolute), `${file} to be removed with its run`);
    expect(storedFiles()).toHaveLength(1);
    expect((await json(`/api/runs/${id}`)).status).toBe(404);
  });

  it.skipIf(!nobodyCanRun)(
    `another user of the machine cannot read them, in a project folder anyone may enter${nobodyCanRun ? '' : ' (skipped: needs root and setpriv to act as nobody)'}`,
    async () => {
      for (const dir of [cwd, path.join(cwd, '.massgen')]) {
        fs.mkdirSync(dir, { recursive: true });
        fs.chmodSync(dir, 0o755);
      }
      const { run } = await start();
      expect((await run(samplePng(4, 4, [9, 9, 9]))).status).toBe(201);
      const [file] = storedFiles();
      const read = spawnSync(asNobody[0]!, [...asNobody.slice(1), 'cat', path.join(uploads(), file!)]);
      expect(read.status, String(read.stdout)).not.toBe(0);
      expect(String(read.stderr)).toMatch(/Permission denied/);
    },
  );

  it('are removed when the server stops', async () => {
    const { server, run } = await start();
    expect((await run(samplePng(4, 4, [0, 0, 200]))).status).toBe(201);
    expect(storedFiles()).toHaveLength(1);
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(storedFiles()).toEqual([]);
  });
});
