/**
 * `massgen mcp` driven by the MCP client SDK, the way a coding agent drives it: the built CLI over
 * stdio and over Streamable HTTP (`--http`), agents on the fake OpenAI-compatible server. run returns
 * at once, status sends progress while it waits, result returns the team's answer; cancel stops the run
 * and its upstream requests; two runs at once stay apart; a client that reconnects gets its result;
 * the HTTP endpoint refuses what the other massgen servers refuse.
 */
import fs, { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunRegistry } from '../../src/mcp-server/run-registry.js';
import { startMcpHttpServer, type McpHttpServer } from '../../src/mcp-server/mcp-http.js';
import { rawRequest } from '../../src/server/web/raw-http.test-support.js';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';
import {
  call,
  cleanups,
  closeMcpClients,
  closingHttpClient,
  httpCli,
  httpClient,
  stdioClient,
} from './mcp-harness.js';

const fake = useFakeServer();
afterEach(closeMcpClients);

function team(ids: readonly string[] = ['alpha', 'beta', 'gamma']) {
  return {
    agents: ids.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    timeout_settings: { agent_turn_timeout_seconds: 30, orchestrator_timeout_seconds: 60 },
  };
}

/** A promise the fake model waits on: its requests are held until the test opens it. */
function heldModel(handler: (body: FakeChatRequestBody) => FakeResponse = convergingHandler) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  fake.server.setHandler(async (body) => {
    await opened;
    return handler(body);
  });
  return open;
}

/** Serves `runs` over MCP HTTP on a free loopback port; the server and the registry close after the test. */
async function serveOverHttp(runs: RunRegistry, cwd: string): Promise<McpHttpServer> {
  const server = await startMcpHttpServer(runs, { cwd, env: {}, port: 0 });
  cleanups.push(
    () => server.close(),
    () => runs.close(),
  );
  return server;
}

describe('massgen mcp over stdio', () => {
  it('lists its tools; run returns at once, status sends progress while it waits, result returns the answer', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    const open = heldModel();
    const { client, stderr } = await stdioClient(cwd);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['cancel', 'list_examples', 'list_runs', 'result', 'run', 'status', 'validate_config'].sort(),
    );
    const run = await call(client, 'run', { question: 'What is 6 times 7?' });
    expect(run.run_id).toMatch(/^mg_[0-9a-f]{12}$/);

    const progress: { progress: number; message?: string }[] = [];
    const watching = call(client, 'status', { run_id: run.run_id, wait_seconds: 60 }, (p) =>
      progress.push(p),
    );
    // Requests are handled in order: once list_runs answers, status is waiting for milestones.
    expect((await call(client, 'list_runs')).runs).toMatchObject([{ run_id: run.run_id }]);
    open();
    const status = await watching;
    expect(status).toMatchObject({ run_id: run.run_id, done: true, phase: 'finished' });
    expect(status.answers).toEqual(
      expect.arrayContaining([expect.objectContaining({ label: 'agent1.1', agent: 'alpha' })]),
    );
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.map((p) => p.progress)).toEqual(
      [...progress.map((p) => p.progress)].sort((a, b) => a - b),
    );
    expect(progress.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        'alpha answered (agent1.1)',
        'beta voted for agent1.1',
        expect.stringMatching(/^finished: completed/),
      ]),
    );

    const result = await call(client, 'result', { run_id: run.run_id, timeout_seconds: 5 });
    expect(result).toMatchObject({
      done: true,
      status: 'completed',
      winner: 'alpha',
      final_answer: finalAnswerOf('alpha'),
      tallies: { alpha: 3 },
    });
    expect(existsSync(path.join(result.log_dir as string, 'status.json'))).toBe(true);
    expect(existsSync(result.answer_file as string)).toBe(true);
    expect(stderr()).toMatch(new RegExp(`run ${run.run_id as string}: completed .* winner alpha`));
  });

  it('cancel stops the run and its upstream requests', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    fake.server.setHandler(() => ({ hang: true }));
    const { client } = await stdioClient(cwd);
    const run = await call(client, 'run', { question: 'Take your time.' });
    await waitUntil(() => fake.server.requests.length === 3, 'three model requests');

    const status = await call(client, 'cancel', { run_id: run.run_id });
    expect(status).toMatchObject({ done: true, phase: 'finished' });
    await waitUntil(
      () => fake.server.requests.every((r) => r.aborted),
      'the upstream requests to be aborted',
    );
    const result = await call(client, 'result', { run_id: run.run_id, timeout_seconds: 0 });
    expect(result).toMatchObject({ status: 'cancelled', exit_code: 130, final_answer: null });
    expect(fake.server.requests).toHaveLength(3);
  });

  it('two runs at once stay apart: each its own answers, result and log folder', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
    writeConfig(cwd, team(['gamma', 'delta']), 'other.yaml');
    const topic = (body: FakeChatRequestBody) =>
      /Q-(one|two)/.exec(JSON.stringify(body.messages))?.[0] ?? '?';
    const open = heldModel((body) => {
      const reply = convergingHandler(body);
      if ('text' in reply && !('toolCalls' in reply && reply.toolCalls))
        return { text: `final ${topic(body)}` };
      if ('toolCalls' in reply && reply.toolCalls?.[0]?.name === 'new_answer')
        return {
          toolCalls: [
            {
              name: 'new_answer',
              arguments: { content: `answer to ${topic(body)} by ${agentOf(body) ?? '?'}` },
            },
          ],
        };
      return reply;
    });
    const { client } = await stdioClient(cwd);
    const one = await call(client, 'run', { question: 'Q-one: first question?' });
    const two = await call(client, 'run', { question: 'Q-two: second question?', config: 'other.yaml' });
    expect(one.run_id).not.toBe(two.run_id);
    await waitUntil(() => fake.server.requests.length === 4, 'both runs at work');
    open();
    const [a, b] = await Promise.all([
      call(client, 'result', { run_id: one.run_id, timeout_seconds: 60 }),
      call(client, 'result', { run_id: two.run_id, timeout_seconds: 60 }),
    ]);
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(a).toMatchObject({ status: 'completed', winner: 'alpha', final_answer: 'final Q-one' });
    expect(b).toMatchObject({ status: 'completed', winner: 'gamma', final_answer: 'final Q-two' });
    expect(a.log_dir).not.toBe(b.log_dir);
    const statusOne = await call(client, 'status', { run_id: one.run_id });
    expect(JSON.stringify(statusOne.answers)).not.toContain('Q-two');
    expect((statusOne.agents as { id: string }[]).map((x) => x.id)).toEqual(['alpha', 'beta']);
  });

  it('lists the bundled examples and validates configs', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    writeConfig(cwd, { agents: [{ id: 'x', backend: { type: 'chatcompletion', modle: 'm' } }] }, 'bad.yaml');
    const { client } = await stdioClient(cwd);
    const { examples } = await call(client, 'list_examples');
    expect(examples).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'basic/three_agents' })]),
    );
    expect(await call(client, 'validate_config', { config: 'team.yaml' })).toMatchObject({
      valid: true,
      errors: [],
    });
    const bad = await call(client, 'validate_config', { config: 'bad.yaml' });
    expect(bad.valid).toBe(false);
    expect(JSON.stringify(bad.errors)).toMatch(/modle/);
    await expect(call(client, 'run', { question: 'hi', config: 'bad.yaml' })).rejects.toThrow(/modle/);
    await expect(call(client, 'status', { run_id: 'mg_nope' })).rejects.toThrow(/no run "mg_nope"/);
  });
});

describe('massgen mcp over HTTP', () => {
  it('a client that disconnects mid-run and reconnects gets the result', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    const open = heldModel();
    const { url, token } = await httpCli(cwd);
    const first = await httpClient(url, token);
    const run = await call(first, 'run', { question: 'What is 6 times 7?' });
    await waitUntil(() => fake.server.requests.length === 3, 'the run at work');
    // It goes away while waiting for the result.
    const waiting = call(first, 'result', { run_id: run.run_id, timeout_seconds: 60 }).catch((e: Error) => e);
    await first.close();
    expect(await waiting).toBeInstanceOf(Error);

    open();
    const second = await closingHttpClient(url, token);
    const result = await call(second, 'result', { run_id: run.run_id, timeout_seconds: 60 });
    expect(result).toMatchObject({
      done: true,
      status: 'completed',
      winner: 'alpha',
      final_answer: finalAnswerOf('alpha'),
    });
  });

  it('refuses a missing token, a foreign Host or Origin and a non-JSON body, like the other servers', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    const runs = new RunRegistry({ cwd, env: {}, config: 'team.yaml' });
    const server = await serveOverHttp(runs, cwd);
    const host = `127.0.0.1:${server.port}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const post = (headers: Record<string, string>) =>
      rawRequest(server.port, {
        method: 'POST',
        path: '/mcp',
        headers: {
          Host: host,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    const auth = { Authorization: `Bearer ${server.token}` };
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ ...auth, Host: 'evil.example:80' })).status).toBe(403);
    expect((await post({ ...auth, Origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ ...auth, Origin: 'null' })).status).toBe(403);
    expect((await post({ ...auth, 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post({ ...auth, 'Content-Type': 'text/plain' })).status).toBe(415);
    await expect(
      startMcpHttpServer(runs, { cwd, env: {}, port: 0, host: '0.0.0.0', auth: false }),
    ).rejects.toThrow(/--no-auth is refused on 0\.0\.0\.0/);
    // The client SDK with the token lists the tools.
    const client = await closingHttpClient(server.url, server.token);
    expect((await client.listTools()).tools).toHaveLength(7);
  });

  it('run takes attachments and context paths: the agents read the file, the winner may write the folder', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha', 'beta']), 'team.yaml');
    fs.writeFileSync(path.join(cwd, 'notes.txt'), 'The launch code is 0000.\n');
    fs.mkdirSync(path.join(cwd, 'docs'));
    fake.server.setHandler(convergingHandler);
    const runs = new RunRegistry({ cwd, env: {}, config: 'team.yaml' });
    const server = await serveOverHttp(runs, cwd);
    const client = await closingHttpClient(server.url, server.token);
    const run = await call(client, 'run', {
      question: 'Summarise the notes.',
      attachments: ['notes.txt'],
      context_paths: [{ path: 'docs', permission: 'write' }],
    });
    const result = await call(client, 'result', { run_id: run.run_id, timeout_seconds: 60 });
    expect(result).toMatchObject({ status: 'completed', winner: 'alpha' });
    expect(fake.server.requests[0]?.view?.text).toContain('Attached file notes.txt');
    expect(fake.server.requests[0]?.view?.text).toContain('The launch code is 0000.');
    expect((result.deliverables as { writable_context_paths: string[] }).writable_context_paths).toEqual([
      path.join(cwd, 'docs'),
    ]);
    await expect(call(client, 'run', { question: 'x', attachments: ['missing.txt'] })).rejects.toThrow(
      /attachment .*missing\.txt: file not found/,
    );
  });

  it('bounds runs like serve: beyond the slots and the queue, run is refused', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(['alpha']), 'team.yaml');
    fake.server.setHandler(() => ({ hang: true }));
    const runs = new RunRegistry({
      cwd,
      env: {},
      config: 'team.yaml',
      maxConcurrent: 1,
      maxQueue: 1,
      logging: false,
    });
    const server = await serveOverHttp(runs, cwd);
    const client = await closingHttpClient(server.url, server.token);
    const running = await call(client, 'run', { question: 'first' });
    const queued = await call(client, 'run', { question: 'second' });
    expect(queued.phase).toBe('queued');
    await expect(call(client, 'run', { question: 'third' })).rejects.toThrow(/at its limit.*\n.*retry/s);
    await call(client, 'cancel', { run_id: queued.run_id });
    expect(await call(client, 'result', { run_id: queued.run_id, timeout_seconds: 0 })).toMatchObject({
      status: 'cancelled',
    });
    expect((await call(client, 'status', { run_id: running.run_id })).phase).not.toBe('finished');
  });
});
