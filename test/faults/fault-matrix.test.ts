/**
 * The fault matrix: the built CLI against loopback fake models, with every way a run can be cut short
 * or fed bad data. Each case must end well: logs in a terminal state, no secret anywhere, no endless run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  linesOf,
  logDirs,
  makeWorkdir,
  onlyLogDir,
  persona,
  readStatus,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from '../e2e/cli-harness.js';
import { waitUntil } from '../support/wait.js';
import {
  MCP_FIXTURE,
  MISBEHAVING_TOOLS,
  allFileTexts,
  processesTagged,
  readJournal,
  toolEntry,
  toolThenConverge,
} from './fault-harness.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';

const fake = useFakeServer();

const agent = (id: string, backend: Record<string, unknown> = {}) =>
  agentEntry(id, fake.server.url, { system_message: persona(id), backend });

/** A team whose agents each have the misbehaving tools. */
function teamWithTools(cwd: string, tools: ReturnType<typeof toolEntry>[]) {
  fs.writeFileSync(path.join(cwd, 'tools.mjs'), MISBEHAVING_TOOLS);
  writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id, { custom_tools: tools })) });
}

/** What a finished run must leave, however it ended. */
function expectTerminal(logDir: string, status: string, exitCode: number) {
  const state = readStatus(logDir);
  expect(state.phase).toBe('finished');
  expect(state.final).toMatchObject({ status, exit_code: exitCode });
  expect(Object.values(state.agents).map((a) => a.status)).not.toContain('thinking');
  const journal = readJournal(logDir);
  expect(journal[0]?.type).toBe('run.started');
  expect(journal.at(-1)).toMatchObject({ type: 'run.finished', status, exitCode });
  // One sequence, no gaps and no duplicates, whatever wrote the last line.
  expect(journal.map((e) => e.seq)).toEqual(journal.map((_, i) => i));
}

describe('a run killed or stopped at any moment', () => {
  it('kill -9 mid-run: events.jsonl holds the run up to the last flush and every complete line parses', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
    await run.until(() => fake.server.requests.length === 2, 'both agents waiting on the model');
    // The journal is flushed at most a few hundred milliseconds after an event.
    await run.until(() => {
      const dir = logDirs(cwd)[0];
      return dir !== undefined && readJournal(dir).some((e) => e.type === 'agent.step.started');
    }, 'the step events on disk');
    run.child.kill('SIGKILL');
    const result = await run.result;
    expect(result.signal).toBe('SIGKILL');
    const events = readJournal(onlyLogDir(cwd));
    expect(events[0]).toMatchObject({ type: 'run.started', question: 'Q?' });
    expect(events.filter((e) => e.type === 'agent.turn.started').map((e) => e.agentId)).toEqual(
      expect.arrayContaining(['a', 'b']),
    );
  });

  it('SIGHUP is handled like SIGTERM: cancelled, exit 130, logs in a terminal state', async () => {
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
    await run.until(() => fake.server.requests.length === 2, 'both agents waiting on the model');
    run.child.kill('SIGHUP');
    const result = await run.result;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('massgen: SIGHUP received — cancelling and writing logs');
    expectTerminal(onlyLogDir(cwd), 'cancelled', 130);
  });

  it('a second Ctrl-C while cancelling quits at once, leaves a terminal status.json and no child behind', async () => {
    // A stubborn MCP server ignores end of input and SIGTERM: cancelling waits seconds for it to stop,
    // which is exactly when an impatient user presses Ctrl-C again.
    const tag = `stubborn-${process.pid}-${Date.now()}`;
    fake.server.setHandler(() => ({ hang: true, sendHeaders: true }));
    const cwd = makeWorkdir();
    const mcp = { stubborn: { command: process.execPath, args: [MCP_FIXTURE, '--stubborn', '--tag', tag] } };
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id, { mcp_servers: mcp })) });
    const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
    await run.until(() => fake.server.requests.length === 2, 'both agents waiting on the model');
    expect(processesTagged(tag).length).toBe(2);
    run.child.kill('SIGINT');
    // Handled (the line is printed in the handler), and the stubborn servers hold the cancelling for
    // seconds: the second Ctrl-C lands while it cancels.
    await run.output(/SIGINT received/, 'the first interrupt', { stream: 'stderr' });
    run.child.kill('SIGINT');
    const result = await run.result;
    expect(result.code).toBe(130);
    const logDir = onlyLogDir(cwd);
    expectTerminal(logDir, 'cancelled', 130);
    expect(readStatus(logDir).final.error?.message).toMatch(/interrupted again by SIGINT while cancelling/);
    await waitUntil(() => processesTagged(tag).length === 0, 'the MCP servers to be gone', {
      seen: () => `still running: ${processesTagged(tag).join(', ')}`,
    });
  });

  const sandbox = sandboxSupport(process.env.PATH);
  // The sandbox case is skipped, visibly, where bubblewrap cannot run: not reported as passed.
  const noSandbox = sandbox.ok ? null : `skipped: ${sandbox.reason}`;
  describe.each([
    { mode: 'local', how: 'a second Ctrl-C', skip: null },
    { mode: 'sandbox', how: 'kill -9', skip: noSandbox },
  ] as const)('commands an agent started ($mode mode)', ({ mode, how, skip }) => {
    it.skipIf(skip !== null)(
      `do not outlive massgen after ${how}, background and setsid children included${skip === null ? '' : ` (${skip})`}`,
      async () => {
        const tag = `1000.${process.pid}${mode === 'local' ? 1 : 2}${Date.now() % 10_000}`;
        const command = `sleep ${tag}1 & setsid sleep ${tag}2 & (sleep ${tag}3 &); sleep ${tag}4`;
        fake.server.setHandler((body) =>
          agentOf(body) === 'a' && toolNames(body).includes('execute_command')
            ? { toolCalls: [{ name: 'execute_command', arguments: { command } }] }
            : { hang: true, sendHeaders: true },
        );
        const cwd = makeWorkdir();
        writeConfig(cwd, {
          agents: [
            agent('a', { cwd: 'ws_a', enable_code_execution: true, execution_mode: mode }),
            agent('b'),
          ],
        });
        const run = startCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
        await run.until(() => processesTagged(tag).length >= 4, 'the command and its children running');
        if (how === 'kill -9') {
          run.child.kill('SIGKILL');
          await run.result;
        } else {
          run.child.kill('SIGINT');
          await run.output(/SIGINT received/, 'the first interrupt', { stream: 'stderr' });
          run.child.kill('SIGINT');
          expect((await run.result).code).toBe(130);
        }
        await waitUntil(() => processesTagged(tag).length === 0, 'every process of the command to be gone', {
          seen: () => `still running: ${processesTagged(tag).join(', ')}`,
        });
      },
    );
  });

  it.each([
    ['an uncaught exception', 'crash_tool', 'crashTool', /internal error: injected crash/],
    ['an unhandled rejection', 'reject_tool', 'rejectTool', /internal error: injected unhandled rejection/],
  ])('%s inside the process: exit 2, logs end failed, the trace is printed', async (_, tool, fn, message) => {
    fake.server.setHandler(toolThenConverge(tool));
    const cwd = makeWorkdir();
    teamWithTools(cwd, [toolEntry(tool, fn)]);
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      env: { MY_SERVICE_TOKEN: 'tok-service-secret-987654' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('tok-service-secret-987654');
    const logDir = onlyLogDir(cwd);
    expectTerminal(logDir, 'failed', 2);
    expect(readStatus(logDir).final.error?.message).toMatch(message);
  });
});

describe('secrets never reach the outside', () => {
  const SECRETS = {
    FAKE_PROVIDER_KEY: 'sk-fake-provider-key-123456',
    MY_SERVICE_TOKEN: 'tok-service-secret-987654',
    header: 'tenant-secret-556677',
    urlPassword: 'pw-secret-112233',
  };

  it('tool results, provider error bodies, URL passwords and header values are scrubbed everywhere', async () => {
    const envCalls = new Set<string>();
    fake.server.setHandler((body) => {
      const id = agentOf(body) ?? 'unknown';
      // c's provider answers 401 and echoes what it was sent, headers included.
      if (id === 'c')
        return {
          status: 401,
          body: {
            error: {
              message: `invalid key ${SECRETS.FAKE_PROVIDER_KEY} (x-tenant: ${SECRETS.header})`,
              type: 'invalid_request_error',
            },
          },
        };
      if (toolNames(body).includes('env_tool') && !envCalls.has(id)) {
        envCalls.add(id);
        return { toolCalls: [{ name: 'env_tool', arguments: {} }] };
      }
      return convergingHandler(body);
    });
    const cwd = makeWorkdir();
    fs.writeFileSync(path.join(cwd, 'tools.mjs'), MISBEHAVING_TOOLS);
    const backend = {
      api_key: '${FAKE_PROVIDER_KEY}',
      headers: { 'X-Tenant': SECRETS.header },
      custom_tools: [toolEntry('env_tool', 'envTool')],
    };
    const withPassword = fake.server.url.replace('http://', `http://user:${SECRETS.urlPassword}@`);
    writeConfig(cwd, {
      agents: [
        agent('a', backend),
        agent('b', backend),
        agent('c', backend),
        agent('d', { base_url: withPassword }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], {
      cwd,
      env: { FAKE_PROVIDER_KEY: SECRETS.FAKE_PROVIDER_KEY, MY_SERVICE_TOKEN: SECRETS.MY_SERVICE_TOKEN },
    });
    expect(result.code).toBe(0);

    // The model did get the tool result, with the secrets masked.
    const bodies = fake.server.requests.map((r) => JSON.stringify(r.body));
    expect(bodies.some((b) => b.includes('provider key ***, service token ***'))).toBe(true);
    const places = [
      { where: 'stdout', text: result.stdout },
      { where: 'stderr', text: result.stderr },
      ...allFileTexts(path.join(cwd, '.massgen')).map((f) => ({ where: f.file, text: f.text })),
      ...bodies.map((text, i) => ({ where: `request ${i}`, text })),
    ];
    for (const secret of Object.values(SECRETS)) {
      expect(places.filter((p) => p.text.includes(secret)).map((p) => p.where)).toEqual([]);
    }
    const logDir = onlyLogDir(cwd);
    const journal = readJournal(logDir);
    const failures = journal.flatMap((e) =>
      e.type === 'agent.turn.finished' && e.error ? [e.error.message] : [],
    );
    expect(failures.some((m) => m.includes('invalid key ***'))).toBe(true);
    // The password of d's base_url shows as *** wherever the URL is written.
    const metadata = fs.readFileSync(path.join(logDir, 'execution_metadata.yaml'), 'utf8');
    expect(metadata).toContain('user:***@127.0.0.1');
    expect(metadata).not.toContain(SECRETS.header);
  });
});

describe('bad surroundings and endless models', () => {
  it('an unwritable log folder stops the run before any agent starts: exit 1, one line naming it', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    fs.writeFileSync(path.join(cwd, '.massgen'), 'a file where the folder should be');
    for (const args of [['--no-display'], ['--automation']]) {
      const result = await runCli(['--config', 'config.yaml', ...args, 'Q?'], { cwd });
      expect(result.code).toBe(1);
      expect(linesOf(result.stderr)[0]).toMatch(
        new RegExp(`^massgen: error: cannot write the log folder ${path.join(cwd, '.massgen')}.*ENOTDIR`),
      );
      expect(result.stdout).not.toContain('LOG_DIR');
    }
    expect(fake.server.requests).toHaveLength(0);
  });

  it('two always-improving agents with no settings end with a winner and at most 3 answers each', async () => {
    let revision = 0;
    fake.server.setHandler((body) => {
      const names = toolNames(body);
      if (!names.includes('vote') && !names.includes('new_answer')) return { text: 'The final answer.' };
      if (names.includes('new_answer'))
        return { toolCalls: [{ name: 'new_answer', arguments: { content: `Better answer ${++revision}` } }] };
      const target = votableIds(body)[0] as string;
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'best so far' } }] };
    });
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: ['a', 'b'].map((id) => agent(id)) });
    const result = await runCli(['--config', 'config.yaml', '--automation', 'Q?'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^WINNER: (a|b)$/m);
    const journal = readJournal(onlyLogDir(cwd));
    for (const id of ['a', 'b']) {
      const answers = journal.filter((e) => e.type === 'answer.submitted' && e.agentId === id);
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.length).toBeLessThanOrEqual(3);
    }
  });

  it('max_new_answers_per_agent: null warns at start that the run may not converge', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['a', 'b'].map((id) => agent(id)),
      orchestrator: { max_new_answers_per_agent: null },
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^massgen: warning: max_new_answers_per_agent is null: agents may answer without limit, so the run may not converge before its timeout/m,
    );
  });
});
