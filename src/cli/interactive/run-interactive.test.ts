import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionsRoot } from '../../app/sessions.js';
import { finalOf, scriptedTeam, userText, workdir } from '../../app/sessions.test-support.js';
import {
  startFakeOpenAIServer,
  type FakeChatRequestBody,
  type FakeOpenAIServer,
} from '../../testing/fake-openai-server.js';
import { listFiles } from '../../logging/log-writer.test-support.js';
import { HELP_TEXT } from './format.js';
import { count, fakeIo } from './interactive.test-support.js';
import { waitUntil } from '../../../test/support/wait.js';
import { plainTurnView, runInteractive } from './run-interactive.js';
import { PROMPT } from './line-input.js';

function start(options: { cwd?: string; team?: ReturnType<typeof scriptedTeam> } = {}) {
  const cwd = options.cwd ?? workdir();
  const team = options.team ?? scriptedTeam();
  const term = fakeIo(cwd);
  const done = runInteractive({ io: term.io, ...team, createView: plainTurnView() });
  return { cwd, team, term, done };
}

const sessionDirs = (cwd: string): string[] =>
  fs.existsSync(sessionsRoot(cwd)) ? fs.readdirSync(sessionsRoot(cwd)).sort() : [];

describe('runInteractive', () => {
  it('runs each line as a turn of one session; the second turn sees the first; /status, /history, /quit', async () => {
    const { cwd, team, term, done } = start();
    term.type('What is 6 x 7?', 'And 6 x 8?', '/status', '/history', '/quit');

    expect(await done).toBe(0);
    const out = term.stdout;
    // Banner: agents, session id, /help.
    expect(out).toMatch(
      /^MassGen interactive — 2 agents: alice \(scripted\/model-alice\), bob \(scripted\/model-bob\)\n/,
    );
    const id = /Session: (session_\d{8}_\d{6}_[0-9a-f]{4}) \(new\)/.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(out).toContain('/help for commands');
    expect(out).toContain(`${PROMPT}What is 6 x 7?\n`);
    // Both turns ran and were shown by the view.
    expect(out).toContain(`=== Final answer (alice) ===\n${finalOf('What is 6 x 7?')}`);
    expect(out).toContain(`=== Final answer (alice) ===\n${finalOf('And 6 x 8?')}`);
    expect(out).toContain(`Session ${id}, turn 2: ${path.join('.massgen', 'sessions', id ?? '', 'turn_2')}`);
    expect(term.stderr).toBe('');

    // The second turn's requests carried the first question and final answer.
    const second = (team.backends.alice?.requests ?? []).filter((r) => userText(r).includes('And 6 x 8?'));
    expect(second.length).toBeGreaterThan(0);
    for (const request of second) {
      expect(userText(request)).toContain('User: What is 6 x 7?');
      expect(userText(request)).toContain(`Final answer: ${finalOf('What is 6 x 7?')}`);
    }

    // /status
    expect(out).toContain(`Session: ${id} (${path.join('.massgen', 'sessions', id ?? '')})`);
    expect(out).toContain('Turns: 2');
    expect(out).toMatch(/ {2}alice {2}scripted\/model-alice — \d+ in \/ \d+ out tokens, cost unknown/);
    expect(out).toMatch(/Tokens: \d+ in \/ \d+ out\nCost: cost unknown/);
    // /history
    expect(out).toContain(`  1. What is 6 x 7? → alice: ${finalOf('What is 6 x 7?')}`);
    expect(out).toContain(`  2. And 6 x 8? → alice: ${finalOf('And 6 x 8?')}`);

    // The session folder.
    expect(sessionDirs(cwd)).toEqual([id]);
    const dir = path.join(sessionsRoot(cwd), id ?? '');
    expect(listFiles(dir)).toEqual([
      'session.json',
      'summary.md',
      path.join('turn_1', 'answer.txt'),
      path.join('turn_1', 'metadata.json'),
      path.join('turn_2', 'answer.txt'),
      path.join('turn_2', 'metadata.json'),
    ]);
    expect(fs.readFileSync(path.join(dir, 'turn_2', 'answer.txt'), 'utf8')).toBe(finalOf('And 6 x 8?'));
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'turn_1', 'metadata.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(meta).toMatchObject({
      question: 'What is 6 x 7?',
      winner: 'alice',
      status: 'completed',
      exit_code: 0,
    });
    expect(fs.existsSync(meta.log_dir as string)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'summary.md'), 'utf8')).toContain('> And 6 x 8?');
  });

  it('/clear starts a new session: new id, new folder, no history; same agents', async () => {
    const { cwd, team, term, done } = start();
    term.type('first question', '/clear', 'second question', '/history', '/exit');

    expect(await done).toBe(0);
    const newId = /New session (session_\S+): earlier turns are no longer sent/.exec(term.stdout)?.[1];
    expect(newId).toBeDefined();
    const dirs = sessionDirs(cwd);
    expect(dirs).toHaveLength(2);
    expect(dirs).toContain(newId);
    const after = (team.backends.bob?.requests ?? []).filter((r) => userText(r).includes('second question'));
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) expect(userText(request)).not.toContain('first question');
    // /history shows only the new session's turn.
    const history = term.stdout.slice(term.stdout.lastIndexOf(`${PROMPT}/history`));
    expect(history).toContain('1. second question');
    expect(history).not.toContain('first question');
    expect(fs.readdirSync(path.join(sessionsRoot(cwd), newId ?? ''))).toContain('turn_1');
  });

  it('an unknown command prints one error line and the help; an empty line is ignored; Ctrl-D exits 0', async () => {
    const { cwd, team, term, done } = start();
    term.type('/frobnicate now', '', '   ', '/help');
    term.end();

    expect(await done).toBe(0);
    expect(term.stderr).toBe('massgen: unknown command /frobnicate — the commands are:\n');
    expect(count(term.stdout, HELP_TEXT)).toBe(2);
    expect(team.backends.alice?.requests).toHaveLength(0);
    expect(sessionDirs(cwd)).toEqual([]);
  });

  it('a failed turn prints the error and the session goes on', async () => {
    const { cwd, term, done } = start();
    term.type('this will FAIL', 'and this works', '/history', '/q');

    expect(await done).toBe(0);
    expect(term.stderr).toMatch(/massgen: run failed: All agents failed/);
    expect(term.stdout).toContain(finalOf('and this works'));
    expect(term.stdout).toMatch(/ {2}1\. this will FAIL → no answer \(failed: All agents failed/);
    expect(term.stdout).toContain(`  2. and this works → alice: ${finalOf('and this works')}`);
    const [id] = sessionDirs(cwd);
    const meta = JSON.parse(
      fs.readFileSync(path.join(sessionsRoot(cwd), id ?? '', 'turn_1', 'metadata.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(meta).toMatchObject({ status: 'failed', exit_code: 2, answer_file: null });
  });

  it('/config shows the config in use with secrets masked', async () => {
    const { term, done } = start();
    term.type('/config', '/quit');
    expect(await done).toBe(0);
    expect(term.stdout).toContain('# config object (secrets masked)');
    expect(term.stdout).toContain('model: model-alice');
    expect(term.stdout).not.toContain('sk-secret-alice');
  });

  it('Ctrl-C during a turn cancels that turn only and returns to the prompt', async () => {
    const { cwd, team, term, done } = start();
    term.type('HANG forever');
    await waitUntil(() => (team.backends.alice?.requests.length ?? 0) > 0, 'the first model call');
    term.interrupt();
    await waitUntil(() => count(term.stdout, PROMPT) === 2, 'the prompt to return');
    expect(term.stderr).toContain('massgen: cancelling this turn — press Ctrl-C again to quit');
    expect(term.stderr).toContain('massgen: cancelled:');

    term.type('next question', '/quit');
    expect(await done).toBe(0);
    expect(term.stdout).toContain(finalOf('next question'));
    const [id] = sessionDirs(cwd);
    const metaOf = (n: number) =>
      JSON.parse(
        fs.readFileSync(path.join(sessionsRoot(cwd), id ?? '', `turn_${n}`, 'metadata.json'), 'utf8'),
      ) as {
        status: string;
        log_dir: string;
      };
    expect(metaOf(1).status).toBe('cancelled');
    expect(metaOf(2).status).toBe('completed');
    // The cancelled turn's logs were written.
    const status = JSON.parse(fs.readFileSync(path.join(metaOf(1).log_dir, 'status.json'), 'utf8')) as {
      final: { status: string };
    };
    expect(status.final.status).toBe('cancelled');
    expect(term.interruptListeners).toBe(0);
  });

  it('a second Ctrl-C during the same turn exits 130 with the logs flushed', async () => {
    const { cwd, team, term, done } = start();
    term.type('HANG forever');
    await waitUntil(() => (team.backends.bob?.requests.length ?? 0) > 0, 'the first model call');
    term.interrupt();
    term.interrupt();
    expect(await done).toBe(130);
    const logs = path.join(cwd, '.massgen', 'massgen_logs');
    const [logDir] = fs.readdirSync(logs);
    expect(fs.existsSync(path.join(logs, logDir ?? '', 'status.json'))).toBe(true);
    expect(fs.existsSync(path.join(logs, logDir ?? '', 'coordination_events.json'))).toBe(true);
  });

  it('Ctrl-C at the prompt exits 130', async () => {
    const { term, done } = start();
    await waitUntil(() => term.stdout.includes(PROMPT), 'the prompt');
    term.interrupt();
    expect(await done).toBe(130);
  });

  it('on a terminal: line editing at the prompt, Ctrl-C as a signal during a turn, Ctrl-C as a key at the prompt', async () => {
    const cwd = workdir();
    const team = scriptedTeam();
    const term = fakeIo(cwd, { isTTY: true });
    const done = runInteractive({ io: term.io, ...team, createView: plainTurnView() });
    // Backspace edits the line before Enter.
    term.stdin.write('HANG foreverX\x7f\r');
    await waitUntil(() => (team.backends.alice?.requests.length ?? 0) > 0, 'the first model call');
    // While the turn runs the readline is closed (the view may own the keys): Ctrl-C arrives as SIGINT.
    term.interrupt();
    await waitUntil(() => count(term.stdout, PROMPT) >= 2, 'the prompt to return');
    expect(term.stderr).toContain('massgen: cancelling this turn');
    term.stdin.write('second\r');
    await waitUntil(() => term.stdout.includes(finalOf('second')), 'the second turn');
    await waitUntil(() => count(term.stdout, PROMPT) >= 3, 'the prompt to return');
    term.stdin.write('\x03');
    expect(await done).toBe(130);
    const [id] = sessionDirs(cwd);
    const questions = [1, 2].map(
      (n) =>
        (
          JSON.parse(
            fs.readFileSync(path.join(sessionsRoot(cwd), id ?? '', `turn_${n}`, 'metadata.json'), 'utf8'),
          ) as { question: string }
        ).question,
    );
    expect(questions).toEqual(['HANG forever', 'second']);
  });

  it('a view that reads keys itself can interrupt its turn like Ctrl-C (twice: quit with 130)', async () => {
    const cwd = workdir();
    const term = fakeIo(cwd, { isTTY: true });
    let presses = 0;
    const done = runInteractive({
      io: term.io,
      ...scriptedTeam(),
      createView: (io, turn) => ({
        handle: (event) => {
          // The user presses Ctrl-C in the view once per turn; in the HANG turn twice.
          if (event.type !== 'agent.step.started' || turn.signal.aborted) return;
          presses++;
          turn.interrupt();
          if (presses === 2) turn.interrupt();
        },
        finish: async () => io.stdout('[view finished]\n'),
      }),
    });
    term.stdin.write('first\r');
    await waitUntil(() => count(term.stdout, PROMPT) >= 2, 'the prompt to return');
    expect(term.stderr).toContain('massgen: cancelled:');
    term.stdin.write('HANG\r');
    expect(await done).toBe(130);
    expect(presses).toBe(2);
  });

  it('a bad config is reported before any prompt (exit code 1)', async () => {
    const term = fakeIo(workdir());
    const code = await runInteractive({ io: term.io, config: { agents: [] }, createView: plainTurnView() });
    expect(code).toBe(1);
    expect(term.stderr).toMatch(/^massgen: error: /);
    expect(term.stdout).toBe('');
  });

  it('a view that cannot even start: the turn runs without one', async () => {
    const term = fakeIo(workdir());
    const done = runInteractive({
      io: term.io,
      ...scriptedTeam(),
      createView: () => {
        throw new Error('no terminal');
      },
    });
    term.type('q1', '/history', '/quit');
    expect(await done).toBe(0);
    expect(term.stderr).toBe('massgen: the display failed: no terminal\n');
    expect(term.stdout).toContain(`1. q1 → alice: ${finalOf('q1')}`);
  });

  it('the view gets the prepared run; while it is live nothing else is printed over it', async () => {
    const team = scriptedTeam();
    const term = fakeIo(workdir());
    const runs: string[] = [];
    let live = false;
    const done = runInteractive({
      io: term.io,
      ...team,
      createView: (_io, _turn, run) => {
        runs.push(`${run.question} → ${run.logDir === null ? 'no logs' : 'logs'}`);
        live = true;
        return {
          handle: () => undefined,
          finish: async () => void (live = false),
          get live() {
            return live;
          },
        };
      },
    });
    term.type('HANG here');
    await waitUntil(() => (team.backends.alice?.requests.length ?? 0) > 0, 'the first model call');
    term.interrupt();
    await waitUntil(() => count(term.stdout, PROMPT) >= 2, 'the prompt to return');
    term.type('/quit');
    expect(await done).toBe(0);
    expect(runs).toEqual(['HANG here → logs']);
    expect(term.stderr).not.toContain('cancelling this turn');
    expect(term.stderr).toContain('massgen: cancelled:');
  });

  it('onActiveRun reports the run of the turn in progress, then null', async () => {
    const term = fakeIo(workdir());
    const seen: (string | null)[] = [];
    const done = runInteractive({
      io: term.io,
      ...scriptedTeam(),
      createView: plainTurnView(),
      onActiveRun: (run) => seen.push(run === null ? null : run.question),
    });
    term.type('q1', '/quit');
    expect(await done).toBe(0);
    expect(seen).toEqual(['q1', null]);
  });

  it('a view that throws does not break the turn or the session', async () => {
    const cwd = workdir();
    const term = fakeIo(cwd);
    let finished = 0;
    const code = runInteractive({
      io: term.io,
      ...scriptedTeam(),
      createView: () => ({
        handle: () => {
          throw new Error('render bug');
        },
        finish: async () => void finished++,
      }),
    });
    term.type('q1', 'q2', '/quit');
    expect(await code).toBe(0);
    expect(count(term.stderr, 'massgen: the display failed: render bug')).toBe(2);
    expect(finished).toBe(2);
    expect(fs.readdirSync(path.join(sessionsRoot(cwd), sessionDirs(cwd)[0] ?? ''))).toContain('turn_2');
  });
});

describe('runInteractive against the fake OpenAI server', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const agentOf = (body: FakeChatRequestBody): string =>
    /You are (\w+)\./.exec(
      (body.messages ?? [])
        .filter((m) => m.role === 'system')
        .map((m) => String(m.content))
        .join('\n'),
    )?.[1] ?? 'unknown';
  const bodyText = (body: FakeChatRequestBody): string => JSON.stringify(body.messages ?? []);

  it('two questions over HTTP: the second turn’s requests contain the first question and answer', async () => {
    server.setHandler((body) => {
      const id = agentOf(body);
      const tools = (body.tools ?? []).map((t) => t.function.name);
      const question =
        /<ORIGINAL MESSAGE>\\n([^\\]*?)\\n<END OF ORIGINAL MESSAGE>/.exec(bodyText(body))?.[1] ?? '?';
      if (!tools.includes('new_answer')) return { text: `HTTP final: ${question}` };
      if (id === 'beta' || bodyText(body).includes('<agent1>'))
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `${id}: ${question}` } }] };
    });
    const cwd = workdir();
    const term = fakeIo(cwd);
    const config = {
      agents: ['alpha', 'beta'].map((id) => ({
        id,
        backend: { type: 'chatcompletion', model: `model-${id}`, base_url: server.url },
        system_message: `You are ${id}.`,
      })),
      timeout_settings: { agent_turn_timeout_seconds: 10, orchestrator_timeout_seconds: 20 },
    };
    const done = runInteractive({ io: term.io, config, createView: plainTurnView() });
    term.type('Capital of France?', 'And of Italy?', '/quit');

    expect(await done).toBe(0);
    expect(term.stderr).toBe('');
    expect(term.stdout).toContain('HTTP final: Capital of France?');
    expect(term.stdout).toContain('HTTP final: And of Italy?');
    const secondTurn = server.requests.filter((r) => r.body && bodyText(r.body).includes('And of Italy?'));
    expect(secondTurn.length).toBeGreaterThan(0);
    for (const request of secondTurn) {
      expect(bodyText(request.body ?? {})).toContain('User: Capital of France?');
      expect(bodyText(request.body ?? {})).toContain('Final answer: HTTP final: Capital of France?');
    }
  });
});
