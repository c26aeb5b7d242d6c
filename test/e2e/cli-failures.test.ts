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

  it('an unreachable base_url: exit 2 quickly, naming the URL and ECONNREFUSED', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: [agentEntry('solo', url, { backend: { max_retries: 0 } })] });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      timeoutMs: 15_000,
    });

    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(2);
    expect(linesOf(result.stderr)).toEqual([
      `massgen: run failed: solo failed: chatcompletion: cannot reach ${url} (ECONNREFUSED)`,
    ]);
    expect(result.durationMs).toBeLessThan(10_000);
    expect(readStatus(onlyLogDir(cwd)).final).toMatchObject({ status: 'failed', exit_code: 2 });
  });
});

describe('hanging models', () => {
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
      timeout_settings: { agent_turn_timeout_seconds: 1 },
    });

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = linesOf(result.stdout);
    expect(out).toContain('[sleepy] ✖ turn failed: turn timed out after 1s');
    expect(out.some((l) => l.startsWith('[sleepy] ✖ dropped: '))).toBe(true);
    expect(result.stdout).toContain('=== Final answer (quick) ===\nFinal from quick.\n');
    expect(result.durationMs).toBeGreaterThanOrEqual(1_000);
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
      {
        cwd,
      },
    );

    expect(result.code).toBe(3);
    expect(linesOf(result.stderr)).toEqual([
      'massgen: timed out: The orchestrator timed out before any agent submitted an answer.',
    ]);
    expect(result.durationMs).toBeGreaterThanOrEqual(2_000);
    expect(result.durationMs).toBeLessThan(10_000);
    const logDir = onlyLogDir(cwd);
    expect(readStatus(logDir).final).toMatchObject({ status: 'timeout', exit_code: 3, answer_file: null });
    expect(readEvents(logDir).at(-1)).toMatchObject({ type: 'run.finished', status: 'timeout', exitCode: 3 });
    expect(listFiles(logDir).some((f) => f.startsWith('final'))).toBe(false);
  });
});

describe('Ctrl-C', () => {
  it('SIGINT cancels the in-flight calls, flushes the logs and exits 130', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url)) });

    const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
    await waitFor(
      () => logDirs(cwd).length === 1 && fs.existsSync(path.join(logDirs(cwd)[0] as string, 'status.json')),
      10_000,
      'status.json',
    );
    await waitFor(() => fake.server.requests.length === 2, 10_000, 'both agents to be waiting on the model');
    const interruptedAt = Date.now();
    run.child.kill('SIGINT');
    const result = await run.result;

    expect(result.code).toBe(130);
    expect(Date.now() - interruptedAt).toBeLessThan(5_000);
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
