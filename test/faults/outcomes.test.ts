/**
 * Outcomes said as they happened: a provider that dies mid-response is not "could not start", a full
 * disk is reported (never `COMPLETED` with paths to files that do not exist), a presentation that fell
 * back to the stored answer says so, and a continued session speaks `--automation` like any run. The
 * built CLI against loopback fake models; the full disk is a real tmpfs in a mount namespace of the
 * CLI's own (`unshare`), so it needs neither root nor a real full disk.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../../src/testing/fake-openai-server.js';
import {
  CLI_BIN,
  agentEntry,
  agentOf,
  cleanEnv,
  convergingHandler,
  linesOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  toolNames,
  useFakeServer,
  waitFor,
  writeConfig,
  type CliResult,
} from '../e2e/cli-harness.js';

const fake = useFakeServer();

const agent = (id: string, url = fake.server.url, backend: Record<string, unknown> = {}) =>
  agentEntry(id, url, { system_message: persona(id), backend });

/** Whether this machine lets a process mount a tmpfs in a user and mount namespace of its own. */
const privateMounts = ((): string | null => {
  const probe = spawnSync('unshare', ['-Urm', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs /mnt'], {
    encoding: 'utf8',
  });
  if (probe.error) return 'unshare is not installed';
  return probe.status === 0 ? null : `no private mounts here: ${probe.stderr.trim()}`;
})();

/**
 * The CLI with `folder` (its `.massgen` unless said) on a tmpfs of `sizeKb`: a disk that fills up
 * during the run.
 */
function runOnSmallDisk(
  cwd: string,
  sizeKb: number,
  args: string[],
  folder = '.massgen',
): Promise<CliResult> {
  const massgenDir = path.join(cwd, folder);
  fs.mkdirSync(massgenDir);
  const script = `mount -t tmpfs -o size=${sizeKb}k tmpfs "$0" && exec "$@"`;
  const child = spawn(
    'unshare',
    ['-Urm', 'sh', '-c', script, massgenDir, process.execPath, CLI_BIN, ...args],
    {
      cwd,
      env: cleanEnv(cwd),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const started = Date.now();
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut: false }),
    ),
  );
}

/** A long final answer: more than the small disk holds. */
const LONG_ANSWER = `The answer is 42. ${'Forty-two, explained at length. '.repeat(4000)}`;

describe('outcomes said as they happened', () => {
  it('a provider that dies while every agent is in its first call: "run failed", lost mid-response, exit 2', async () => {
    const doomed = await startFakeOpenAIServer();
    try {
      doomed.setHandler(() => ({ hang: true, sendHeaders: true }));
      const cwd = makeWorkdir();
      writeConfig(cwd, {
        agents: ['a', 'b'].map((id) => agent(id, doomed.url, { max_retries: 1 })),
      });
      const run = runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd, timeoutMs: 120_000 });
      // Both agents have their response under way (status and headers): then the provider goes.
      await waitFor(() => doomed.requests.length >= 2, 60_000, 'both agents to reach the provider');
      await doomed.close();
      const result = await run;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('massgen: run failed:');
      expect(result.stderr).not.toMatch(/could not start/);
      // Each first attempt is said as what it was: the response began, then the connection went.
      const retries = readEvents(onlyLogDir(cwd)).filter((e) => e.type === 'agent.step.retrying');
      for (const id of ['a', 'b']) {
        const retry = retries.find((e) => e.agentId === id);
        if (retry?.type !== 'agent.step.retrying') throw new Error(`no retry of ${id}`);
        expect(retry.error.message).toMatch(
          /connection to http:\/\/127\.0\.0\.1:\d+\/v1 was lost mid-response/,
        );
        expect(retry.responded).toBe(true);
      }
    } finally {
      await doomed.close();
    }
  }, 150_000);

  it.skipIf(privateMounts !== null)(
    `a full disk: the run's outcome stands, the logs are said to be incomplete, no path to a file that is not there${privateMounts === null ? '' : ` (skipped: ${privateMounts})`}`,
    async () => {
      fake.server.setHandler((body) =>
        toolNames(body).includes('new_answer')
          ? convergingHandler(body)
          : { text: LONG_ANSWER, chunkSize: 4096 },
      );
      const automated = makeWorkdir();
      writeConfig(automated, { agents: ['a', 'b'].map((id) => agent(id)) });
      const result = await runOnSmallDisk(automated, 96, ['--config', 'config.yaml', '--automation', 'Q?']);
      const lines = linesOf(result.stdout);
      expect(result.code, result.stderr).toBe(0);
      expect(lines).toContain('WINNER: a');
      expect(lines.find((l) => l.startsWith('LOGS_INCOMPLETE: '))).toMatch(/^LOGS_INCOMPLETE: ENOSPC: /);
      // Every path printed names a file that exists; the answer's was not written.
      expect(lines).toContain('ANSWER_FILE: -');
      expect(result.stderr).toMatch(/warning: logs in .* are incomplete: ENOSPC/);

      const plain = makeWorkdir();
      writeConfig(plain, { agents: ['a', 'b'].map((id) => agent(id)) });
      const shown = await runOnSmallDisk(plain, 96, ['--config', 'config.yaml', '--no-display', 'Q?']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('The answer is 42.');
      expect(shown.stderr).toMatch(/massgen: warning: logs in .* are incomplete: ENOSPC/);
      expect(shown.stderr).toContain('the final answer file was not written');
    },
    120_000,
  );

  it.skipIf(privateMounts !== null)(
    `a batch whose output's disk fills up: stops at once and names the file${privateMounts === null ? '' : ` (skipped: ${privateMounts})`}`,
    async () => {
      fake.server.setHandler((body) =>
        toolNames(body).includes('new_answer')
          ? convergingHandler(body)
          : { text: LONG_ANSWER, chunkSize: 4096 },
      );
      const cwd = makeWorkdir();
      writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
      const questions = ['q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, question: `Q ${id}?` }));
      fs.writeFileSync(path.join(cwd, 'questions.jsonl'), `${questions.join('\n')}\n`);
      const args = ['batch', '--config', 'config.yaml', '--input', 'questions.jsonl', '--no-logs'];
      // The output's folder holds less than one result line (each carries the long answer).
      const full = await runOnSmallDisk(
        cwd,
        16,
        [...args, '--concurrency', '1', '--output', 'out/results.jsonl'],
        'out',
      );
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toMatch(
        /^massgen: error: cannot write to the batch output \S*out\/results\.jsonl: ENOSPC$/m,
      );
      expect(full.stderr).toContain('run the same command again: the batch resumes where it stopped');
      expect(full.stderr).not.toMatch(/\n\s+at /); // no stack trace
      // Nothing new started after the failed write: the batch stopped at the question it could not
      // write (the first whose line did not fit), not after all three.
      const asked = [
        ...new Set(fake.server.requests.map((r) => /Q (q\d)\?/.exec(JSON.stringify(r.body))?.[1])),
      ];
      const written = (full.stderr.match(/^\[\d\/3\] q\d completed/gm) ?? []).length;
      expect(asked.filter(Boolean)).toEqual(['q1', 'q2', 'q3'].slice(0, written + 1));
    },
    120_000,
  );

  it('a presentation that fell back to the stored answer says so in --automation', async () => {
    fake.server.setHandler((body) =>
      toolNames(body).includes('new_answer')
        ? convergingHandler(body)
        : { status: 400, body: { error: { message: 'presentation refused by the model' } } },
    );
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    const result = await runCli(['--config', 'config.yaml', '--automation', 'Q?'], {
      cwd,
      timeoutMs: 60_000,
    });
    const lines = linesOf(result.stdout);
    expect(result.code, result.stderr).toBe(0);
    const fallback = lines.find((l) => l.startsWith('PRESENTATION_FALLBACK: '));
    expect(fallback).toMatch(/^PRESENTATION_FALLBACK: a: .*presentation refused by the model.*stored answer/);
    expect(lines).toContain('WINNER: a');
  }, 90_000);

  it('--continue --automation speaks like any run: KEY: value lines only, WINNER, ANSWER_FILE, COMPLETED, SESSION', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    // A session to continue: one turn through interactive mode (piped stdin).
    // (Not spawnSync: the fake model answers from this process's event loop.)
    const first = spawn(process.execPath, [CLI_BIN, '--config', 'config.yaml', '--no-display'], {
      cwd,
      env: cleanEnv(cwd),
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    first.stdin.end('What is 6 x 7?\n/quit\n');
    expect(await new Promise((resolve) => first.on('close', resolve))).toBe(0);
    const result = await runCli(['--config', 'config.yaml', '--continue', '--automation', 'And 7 x 8?'], {
      cwd,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = linesOf(result.stdout);
    for (const line of lines) expect(line, `stdout line ${JSON.stringify(line)}`).toMatch(/^[A-Z_]+: /);
    expect(lines).toContain('WINNER: a');
    const answerFile = lines.find((l) => l.startsWith('ANSWER_FILE: '))?.slice('ANSWER_FILE: '.length) ?? '';
    expect(fs.readFileSync(answerFile, 'utf8')).toContain('Final answer from');
    expect(lines.some((l) => l.startsWith('COMPLETED: 2 agents'))).toBe(true);
    expect(lines.find((l) => l.startsWith('SESSION: '))).toMatch(/^SESSION: session_/);
    expect(lines).toContain('TURN: 2');
    // The earlier turn reached the agents as history.
    const second = fake.server.requests.filter((r) => JSON.stringify(r.body).includes('And 7 x 8?'));
    expect(second.some((r) => JSON.stringify(r.body).includes('What is 6 x 7?'))).toBe(true);
    expect(second.map((r) => agentOf(r.body as never)).filter(Boolean).length).toBeGreaterThan(0);
  }, 300_000);
});
