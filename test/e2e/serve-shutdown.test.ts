/**
 * Stopping the built `massgen serve` (SIGTERM, SIGINT) with runs in flight, seen from the official
 * `openai` client: every client is told its run was cancelled — a stream by an error event and then
 * `[DONE]`, a plain request by a `503` — once that run's logs are closed; a request that arrives during
 * the drain gets `503` with `Connection: close`; the process exits by itself, within its bound, with
 * every run's log folder in a terminal state; a second signal quits at once, logs still closed.
 *
 * One run is held by a test adapter whose `close()` waits for a file the test writes: the drain
 * lasts exactly as long as the test wants, whatever the machine's load.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/index.js';
import {
  agentEntry,
  logDirs,
  makeWorkdir,
  persona,
  REPO_ROOT,
  runCli,
  startCli,
  useFakeServer,
  waitFor,
  writeConfig,
  type RunningCli,
} from './cli-harness.js';
import { closedLog, logEnd } from './serve-logs.test-support.js';

const fake = useFakeServer();
const children: RunningCli[] = [];
// A failed test must not leave its server running (it would hold the run it was given for minutes).
afterEach(() => {
  for (const cli of children.splice(0)) if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
});
const WAIT_MS = 60_000;
const SLOW_CLOSE_ADAPTER = path.join(REPO_ROOT, 'test', 'fixtures', 'agents', 'slow-close-adapter.mjs');
const CANCELLED = 'the run was cancelled: massgen serve is shutting down';

/** Each model call streams a line of work every 50 ms for minutes: every run is in flight until cancelled. */
const working = (): FakeResponse => ({ text: 'Working on it.\n'.repeat(6_000), chunkSize: 15, delayMs: 50 });

/** A working directory with `team.yaml` (two agents on the fake model) and `held.yaml` (one slow-closing adapter). */
function workdir(): { cwd: string; release: () => void } {
  const cwd = makeWorkdir();
  const releaseFile = path.join(cwd, 'release-held-run');
  writeConfig(
    cwd,
    {
      agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    },
    'team.yaml',
  );
  writeConfig(
    cwd,
    {
      adapters: { slow: SLOW_CLOSE_ADAPTER },
      agents: [
        {
          id: 'holder',
          backend: { type: 'external', framework: 'slow', provider_options: { release: releaseFile } },
        },
      ],
    },
    'held.yaml',
  );
  return { cwd, release: () => fs.writeFileSync(releaseFile, 'go') };
}

interface Served {
  cli: RunningCli;
  url: string;
  key: string;
  /** What the CLI printed so far, for failure messages. */
  output: () => string;
  health: (withKey?: boolean) => Promise<{ status: number; body: Record<string, unknown> }>;
  client: (maxRetries?: number) => OpenAI;
}

async function startServe(cwd: string, args: readonly string[] = []): Promise<Served> {
  // `serve` offers the folder's own configs (massgen/held) only once the user has trusted the folder.
  const trusted = await runCli(['trust', cwd], { cwd, timeoutMs: 120_000 });
  if (trusted.code !== 0) throw new Error(`massgen trust failed:\n${trusted.stderr}`);
  const cli = startCli(['serve', '--config', 'team.yaml', '--port', '0', ...args], {
    cwd,
    timeoutMs: 240_000,
  });
  children.push(cli);
  const output = () => `stdout:\n${cli.stdout}\nstderr:\n${cli.stderr}`;
  await waitFor(
    () => {
      if (cli.child.exitCode !== null) throw new Error(`massgen serve exited before it was up\n${output()}`);
      return /API key: \S+/.test(cli.stdout);
    },
    WAIT_MS,
    'massgen serve to print its address and key',
    output,
  );
  const url = /massgen serve: (http:\/\/\S+\/v1)/.exec(cli.stdout)?.[1] as string;
  const key = /API key: (\S+)/.exec(cli.stdout)?.[1] as string;
  const health = async (withKey = true) => {
    const response = await fetch(url.replace(/\/v1$/, '/health'), {
      headers: withKey ? { authorization: `Bearer ${key}` } : {},
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const client = (maxRetries = 0) => new OpenAI({ baseURL: url, apiKey: key, maxRetries });
  return { cli, url, key, output, health, client };
}

const question = [{ role: 'user' as const, content: 'What is 6 times 7?' }];

/**
 * Opens a stream with the openai client and reads its first chunk (the stream is open); then reads on.
 * `end` resolves with what the client finally raised (or `null` for a clean end) and the chunks read.
 */
async function openStream(client: OpenAI, model: string) {
  const stream = await client.chat.completions.create({ model, messages: question, stream: true });
  const iterator = stream[Symbol.asyncIterator]();
  const first = await iterator.next();
  expect(first.done, 'the stream sends its first chunk while the run goes on').toBe(false);
  const end = (async () => {
    let chunks = 1;
    try {
      while (!(await iterator.next()).done) chunks++;
      return { error: null as unknown, chunks };
    } catch (error) {
      return { error, chunks };
    }
  })();
  return { end };
}

/** Opens a stream with plain fetch, reads its first trace chunk, then on; `end` resolves with the raw SSE text. */
async function openRawStream(served: Served, model: string): Promise<{ end: Promise<string> }> {
  const response = await fetch(`${served.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${served.key}` },
    body: JSON.stringify({ model, messages: question, stream: true }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('reasoning_content')) {
    const next = await reader.read();
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  const end = (async () => {
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read())
        text += decoder.decode(next.value, { stream: true });
    } catch (error) {
      text += `\n<connection lost: ${String(error)}>`;
    }
    return text;
  })();
  return { end };
}

/** The end of a raw SSE stream the server's shutdown cancelled: the error event, then `[DONE]`. */
const CANCELLED_TAIL = `data: ${JSON.stringify({
  error: { message: CANCELLED, type: 'server_error', code: 'cancelled', param: null },
})}\n\ndata: [DONE]\n\n`;

/** A POST on a fresh connection, with the raw status and headers. */
function rawPost(served: Served, body: unknown) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(
        `${served.url}/chat/completions`,
        {
          method: 'POST',
          agent: false,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${served.key}` },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    },
  );
}

const CANCELLED_LOG = closedLog('cancelled');

/** The log folder of the held run (its agent is `holder`), and the others. */
function splitLogs(cwd: string) {
  const dirs = logDirs(cwd);
  const isHeld = (dir: string) =>
    fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').includes('"holder"');
  return { held: dirs.filter(isHeld), others: dirs.filter((dir) => !isHeld(dir)) };
}

/** Waits until `/health` counts exactly these runs in flight and requests waiting. */
function runsInFlight(served: Served, running: number, waiting = 0) {
  const health = async () => JSON.stringify((await served.health()).body);
  return waitFor(
    async () => (await health()).includes(`"runs":{"running":${running},"waiting":${waiting}}`),
    WAIT_MS,
    `${running} runs in flight and ${waiting} waiting`,
    health,
  );
}

/**
 * A server (with `args`) running two streams — one of the team, one held — stopped by `signal`: the
 * team's stream is told at once that its run was cancelled. Returns the held stream, still open.
 */
async function stopWithHeldRun(args: readonly string[], signal: NodeJS.Signals) {
  fake.server.setHandler(working);
  const { cwd } = workdir();
  const served = await startServe(cwd, args);
  const quick = await openRawStream(served, 'massgen');
  const held = await openRawStream(served, 'massgen/held');
  await runsInFlight(served, 2);
  served.cli.child.kill(signal);
  const quickText = await quick.end;
  expect(quickText.endsWith(CANCELLED_TAIL), quickText.slice(-400)).toBe(true);
  return { cwd, served, held };
}

/** An error the openai client raised, as the fields a caller looks at. */
const apiError = (error: unknown) => ({
  isApiError: error instanceof OpenAI.APIError,
  status: (error as InstanceType<typeof OpenAI.APIError>).status,
  code: (error as InstanceType<typeof OpenAI.APIError>).code,
  message: (error as Error).message,
});

describe('stopping massgen serve with runs in flight', { timeout: 300_000 }, () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: every client is told its run was cancelled, a request during the drain gets 503, the logs end cancelled, exit 0',
    async (signal) => {
      fake.server.setHandler(working);
      const { cwd, release } = workdir();
      const served = await startServe(cwd, ['--max-concurrent', '8', '--shutdown-timeout', '600']);
      const streaming = served.client();

      // Five streams with the openai client, one read raw, one plain request (the openai client's own
      // retries on, to show it reports the error rather than retrying), the held run, and one waiting.
      const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(streaming, 'massgen')));
      const raw = await openRawStream(served, 'massgen');
      const plain = served
        .client(2)
        .chat.completions.create({ model: 'massgen', messages: question })
        .then(
          () => null,
          (error: unknown) => error,
        );
      const held = await openStream(streaming, 'massgen/held');
      await waitFor(
        async () => (await served.health()).body.runs !== undefined && fake.server.requests.length >= 14,
        WAIT_MS,
        'all 7 team runs to call their model (14 calls)',
        async () => `${fake.server.requests.length} calls; ${JSON.stringify((await served.health()).body)}`,
      );
      const waiting = served
        .client(2)
        .chat.completions.create({ model: 'massgen', messages: question })
        .then(
          () => null,
          (error: unknown) => error,
        );
      await runsInFlight(served, 8, 1);

      served.cli.child.kill(signal);
      await waitFor(
        () => served.cli.stderr.includes('massgen serve: stopping:'),
        WAIT_MS,
        'the stopping line',
        served.output,
      );
      expect(served.cli.stderr).toContain(
        'massgen serve: stopping: 9 runs in flight, cancelling — press Ctrl-C again to quit now\n',
      );

      // The team's runs end at once; each client is told, and the waiting request too.
      for (const outcome of await Promise.all(streams.map((stream) => stream.end))) {
        expect(apiError(outcome.error)).toEqual({
          isApiError: true,
          status: undefined,
          code: 'cancelled',
          message: CANCELLED,
        });
      }
      const rawText = await raw.end;
      expect(rawText.endsWith(CANCELLED_TAIL), rawText.slice(-400)).toBe(true);
      for (const refused of [await plain, await waiting]) {
        expect(refused).toBeInstanceOf(OpenAI.InternalServerError);
        expect(apiError(refused)).toMatchObject({ status: 503, code: 'cancelled' });
      }
      // By the time a client has its answer, its run's log folder is complete.
      const { held: heldLogs, others } = splitLogs(cwd);
      expect(heldLogs).toHaveLength(1);
      expect(others).toHaveLength(7);
      for (const dir of others) expect(logEnd(dir), dir).toEqual(CANCELLED_LOG);

      // The held run keeps the server draining — still counted, as it is still writing its logs — and
      // the server says it is stopping and takes nothing new.
      expect(await served.health()).toMatchObject({
        status: 503,
        body: { status: 'stopping', runs: { running: 1, waiting: 0 } },
      });
      expect(await served.health(false)).toEqual({ status: 503, body: { status: 'stopping' } });
      const late = await rawPost(served, { model: 'massgen', messages: question });
      expect(late.status).toBe(503);
      expect(late.headers.connection).toBe('close');
      expect(late.headers['x-should-retry']).toBe('false');
      expect(JSON.parse(late.body)).toMatchObject({
        error: { type: 'server_error', code: 'shutting_down' },
      });
      const lateClient = await served
        .client(2)
        .chat.completions.create({ model: 'massgen', messages: question })
        .catch((error: unknown) => error);
      expect(lateClient).toBeInstanceOf(OpenAI.InternalServerError);
      expect(apiError(lateClient)).toMatchObject({ status: 503, code: 'shutting_down' });
      expect(served.cli.child.exitCode).toBeNull();

      release();
      expect(apiError((await held.end).error)).toMatchObject({ code: 'cancelled', message: CANCELLED });
      const result = await served.cli.result;
      expect(result.timedOut, served.output()).toBe(false);
      expect(result.code, served.output()).toBe(0);
      for (const dir of logDirs(cwd)) expect(logEnd(dir), dir).toEqual(CANCELLED_LOG);
      expect(result.stderr.match(/^run \S+ \(massgen(\/held)?\): cancelled in /gm)).toHaveLength(8);
    },
  );

  it('quits within --shutdown-timeout when a run does not end: its logs are closed, its client told, exit 130', async () => {
    const { cwd, served, held } = await stopWithHeldRun(['--shutdown-timeout', '1'], 'SIGTERM');
    // The held run never ends by itself: past the bound its client is answered all the same.
    const heldText = await held.end;
    expect(heldText.endsWith(CANCELLED_TAIL), heldText.slice(-400)).toBe(true);
    const result = await served.cli.result;
    expect(result.timedOut, served.output()).toBe(false);
    expect(result.code, served.output()).toBe(130);
    expect(result.stderr).toContain(
      'massgen serve: 1 run had not ended after 1s: logged as cancelled, clients told so\n',
    );
    for (const dir of logDirs(cwd)) expect(logEnd(dir), dir).toEqual(CANCELLED_LOG);
  });

  it('a second Ctrl-C quits at once, the logs of the runs still in flight closed as cancelled (exit 130)', async () => {
    const { cwd, served, held } = await stopWithHeldRun(['--shutdown-timeout', '600'], 'SIGINT');
    // The held run is still draining (the bound is 10 minutes): the second Ctrl-C does not wait for it.
    expect(served.cli.child.exitCode).toBeNull();
    served.cli.child.kill('SIGINT');
    const result = await served.cli.result;
    expect(result.timedOut, served.output()).toBe(false);
    expect(result.code, served.output()).toBe(130);
    expect(result.stderr).toContain(
      'massgen serve: quitting now; the runs in flight are logged as cancelled\n',
    );
    await held.end;
    for (const dir of logDirs(cwd)) expect(logEnd(dir), dir).toEqual(CANCELLED_LOG);
  });
});
