/**
 * The built CLI when providers misbehave: retryable errors, a rejected key, an unreachable server,
 * hanging models, and Ctrl-C. Exit codes: 0 success, 2 run failed, 3 timed out, 130 interrupted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentEntry,
  agentOf,
  freePort,
  linesOf,
  listFiles,
  logDirs,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  readStatus,
  runCli,
  startCli,
  toolNames,
  waitFor,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';

const SECRET = 'sk-test-SECRET123456';

const fake = useFakeServer();

const singleAgentArgs = (question: string): string[] => [
  '--backend',
  'chatcompletion',
  '--model',
  'm',
  '--base-url',
  fake.server.url,
  '--no-display',
  question,
];

describe('retryable provider errors', () => {
  it('HTTP 429 with retry-after: 0 is retried at once and the run completes', async () => {
    fake.server.enqueue({ status: 429, headers: { 'retry-after': '0' } }, { text: 'answer after 429' });
    const cwd = makeWorkdir();

    const result = await runCli(singleAgentArgs('Q?'), { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(fake.server.requests).toHaveLength(2);
    // A single agent's answer is its final answer, so the retry shows under the final-answer header.
    expect(result.stdout).toContain(
      '=== Final answer (agent_1) ===\n' +
        '[agent_1] … retrying in 0.0s (attempt 1): chatcompletion: HTTP 429 Too Many Requests: fake server: scripted HTTP 429\n' +
        'answer after 429\n',
    );
    const events = readEvents(onlyLogDir(cwd));
    expect(events.filter((e) => e.type === 'agent.step.retrying')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'completed' });
  });

  it('HTTP 500 once is retried with backoff and the run completes', async () => {
    fake.server.enqueue({ status: 500 }, { text: 'answer after 500' });
    const cwd = makeWorkdir();

    const result = await runCli(singleAgentArgs('Q?'), { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(fake.server.requests).toHaveLength(2);
    expect(result.stdout).toMatch(
      /^=== Final answer \(agent_1\) ===\n\[agent_1\] … retrying in \d+\.\ds \(attempt 1\): chatcompletion: HTTP 500 Internal Server Error: fake server: scripted HTTP 500\nanswer after 500\n/m,
    );
    expect(readStatus(onlyLogDir(cwd)).final.status).toBe('completed');
  });
});

describe('runs that fail', () => {
  it('HTTP 401 on every request: exit 2, one "run failed" line naming the provider message, logs kept', async () => {
    // The provider echoes the key it rejected; massgen must not repeat it anywhere.
    fake.server.setHandler(() => ({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${SECRET}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    }));
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { backend: { api_key: SECRET } })),
    });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });

    expect(result.code).toBe(2);
    const errLines = linesOf(result.stderr);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(
      /^massgen: run failed: All agents failed — a: chatcompletion: HTTP 401 Unauthorized: /,
    );
    expect(errLines[0]).toContain('Incorrect API key provided');
    expect(errLines[0]).toContain(
      'You can find your API key at https://platform.openai.com/account/api-keys.',
    );
    expect(errLines[0]).toContain('; b: chatcompletion: HTTP 401 Unauthorized');
    // Non-retryable: one request per turn, max_agent_failures (2) turns per agent.
    expect(fake.server.requests).toHaveLength(4);

    const logDir = onlyLogDir(cwd);
    const status = readStatus(logDir);
    expect(status.phase).toBe('finished');
    expect(status.final).toMatchObject({ status: 'failed', exit_code: 2, answer_file: null });
    expect(status.final.error?.message).toMatch(/^All agents failed — /);
    expect(status.coordination.end_reason).toBe('all_agents_failed');
    expect(status.agents.a?.status).toBe('dropped');
    expect(status.agents.b?.status).toBe('dropped');
    expect(readEvents(logDir).at(-1)).toMatchObject({ type: 'run.finished', status: 'failed', exitCode: 2 });
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    for (const file of listFiles(logDir))
      expect(fs.readFileSync(path.join(logDir, file), 'utf8')).not.toContain(SECRET);
  });

  it('an unreachable base_url: exit 1, one line naming the URL and ECONNREFUSED, and the offline demo', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: [agentEntry('solo', url, { backend: { max_retries: 0 } })] });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });

    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(linesOf(result.stderr)).toEqual([
      `massgen: error: the run could not start: no agent could reach its provider (solo: chatcompletion: cannot reach ${url} (ECONNREFUSED)) — check the network connection and base_url; to try massgen offline, run \`massgen demo\``,
    ]);
    expect(readStatus(onlyLogDir(cwd)).final).toMatchObject({ status: 'failed', exit_code: 1 });
  });

  it('no network for any agent (a closed port, a host that never resolves): exit 1 naming both hosts once', async () => {
    const port = await freePort();
    const closed = `http://127.0.0.1:${port}/v1`;
    // `.invalid` never resolves (RFC 2606): no request leaves the machine.
    const nowhere = 'http://nonexistent.invalid/v1';
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('a', closed, { backend: { max_retries: 0 } }),
        agentEntry('b', closed, { backend: { max_retries: 0 } }),
        agentEntry('c', nowhere, { backend: { max_retries: 0, api_key: 'sk-test-unused' } }),
      ],
    });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });

    expect(result.code).toBe(1);
    const lines = linesOf(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^massgen: error: the run could not start: no agent could reach its provider \(/,
    );
    expect(lines[0]).toContain(`a, b: chatcompletion: cannot reach ${closed} (ECONNREFUSED)`);
    expect(lines[0]).toMatch(
      /c: chatcompletion: cannot reach http:\/\/nonexistent\.invalid\/v1 \((ENOTFOUND|EAI_AGAIN)\)/,
    );
    expect(lines[0]).toContain('`massgen demo`');
    expect(readEvents(onlyLogDir(cwd)).at(-1)).toMatchObject({
      type: 'run.finished',
      status: 'failed',
      exitCode: 1,
    });
  });

  it('an agent that reached its provider keeps the run a failed run (exit 2), even if the others could not', async () => {
    fake.server.setHandler(() => ({ status: 401, body: { error: { message: 'bad key' } } }));
    const port = await freePort();
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { backend: { max_retries: 0 } }),
        agentEntry('b', `http://127.0.0.1:${port}/v1`, { backend: { max_retries: 0 } }),
      ],
    });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });

    expect(result.code).toBe(2);
    const lines = linesOf(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^massgen: run failed: All agents failed — /);
    expect(lines[0]).toContain('a: chatcompletion: HTTP 401 Unauthorized: bad key');
    expect(lines[0]).toMatch(/b: chatcompletion: cannot reach \S+ \(ECONNREFUSED\)/);
  });
});

describe('hanging models', { timeout: 120_000 }, () => {
  it('an agent whose turn times out is dropped and the others finish: exit 0', async () => {
    fake.server.setHandler((body) => {
      const id = agentOf(body);
      if (id === 'sleepy') return { hang: true, sendHeaders: true };
      if (!toolNames(body).includes('new_answer')) return { text: 'Final from quick.' };
      return toolNames(body).includes('vote')
        ? { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'mine is fine' } }] }
        : { toolCalls: [{ name: 'new_answer', arguments: { content: 'quick answer' } }] };
    });
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['quick', 'sleepy'].map((id) =>
        agentEntry(id, fake.server.url, { system_message: persona(id) }),
      ),
      orchestrator: { max_agent_failures: 1 },
      // Every turn has this limit, quick's too: long enough for a loaded machine to answer in time.
      timeout_settings: { agent_turn_timeout_seconds: 5 },
    });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = linesOf(result.stdout);
    expect(out).toContain('[sleepy] ✖ turn failed: turn timed out after 5s');
    expect(out.some((l) => l.startsWith('[sleepy] ✖ dropped: '))).toBe(true);
    expect(result.stdout).toContain('=== Final answer (quick) ===\nFinal from quick.\n');
    expect(result.durationMs).toBeGreaterThanOrEqual(5_000);
    const logDir = onlyLogDir(cwd);
    const status = readStatus(logDir);
    expect(status.agents.sleepy?.status).toBe('dropped');
    expect(status.coordination.winner).toBe('quick');
    expect(status.final.status).toBe('completed');
    expect(
      readEvents(logDir)
        .filter((e) => e.type === 'agent.dropped')
        .map((e) => e.agentId),
    ).toEqual(['sleepy']);
  });

  it('every agent hanging past --orchestrator-timeout: exit 3 with no answer', async () => {
    fake.server.setHandler(() => ({ hang: true }));
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url)) });

    const result = await runCli(
      ['--config', 'config.yaml', '--no-display', '--orchestrator-timeout', '2', 'Q?'],
      { cwd, timeoutMs: 60_000 },
    );

    expect(result.code).toBe(3);
    expect(linesOf(result.stderr)).toEqual([
      'massgen: timed out: The orchestrator timed out before any agent submitted an answer.',
    ]);
    // Every model hangs, so only the orchestrator timeout ends this run: no upper bound on the time needed.
    expect(result.durationMs).toBeGreaterThanOrEqual(2_000);
    const logDir = onlyLogDir(cwd);
    expect(readStatus(logDir).final).toMatchObject({ status: 'timeout', exit_code: 3, answer_file: null });
    expect(readEvents(logDir).at(-1)).toMatchObject({ type: 'run.finished', status: 'timeout', exitCode: 3 });
    expect(listFiles(logDir).some((f) => f.startsWith('final'))).toBe(false);
  });
});

describe('Ctrl-C', { timeout: 120_000 }, () => {
  it('SIGINT cancels the in-flight calls, flushes the logs and exits 130', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url)) });

    const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd, timeoutMs: 90_000 });
    await waitFor(
      () => logDirs(cwd).length === 1 && fs.existsSync(path.join(logDirs(cwd)[0] as string, 'status.json')),
      30_000,
      'status.json',
    );
    await waitFor(() => fake.server.requests.length === 2, 30_000, 'both agents to be waiting on the model');
    run.child.kill('SIGINT');
    // The models hang forever: only the SIGINT ends the run (the harness kills it at its timeout otherwise).
    const result = await run.result;

    expect(result.code).toBe(130);
    expect(result.stderr).toContain('massgen: SIGINT received — cancelling and writing logs');
    expect(linesOf(result.stderr).at(-1)).toMatch(/^massgen: cancelled: /);
    const logDir = onlyLogDir(cwd);
    const events = readEvents(logDir);
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'cancelled', exitCode: 130 });
    expect(readStatus(logDir).final).toMatchObject({ status: 'cancelled', exit_code: 130 });
    expect(fake.server.requests).toHaveLength(2);
  });
});
