/**
 * Subagents survive a killed parent, through the built CLI against the fake server: a parent spawns a
 * background subagent whose model call never answers, the CLI is killed (SIGKILL) once the subagent's
 * checkpoint says running, and `--continue` re-attaches it — same id, started again from its
 * checkpoint — and its result reaches the parent agent of the new turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  logDirs,
  makeWorkdir,
  persona,
  readEvents,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { lastToolRound, userText } from './subagents.test-support.js';

const fake = useFakeServer();

const SUBTASK = 'SUBTASK-LONG: add 21 and 21';
const RESULT = 'Result of the long part: 42.';

interface SeenSubagent {
  id: string;
  state: string;
  restored?: boolean;
}

/** The fake models of both runs: `phase` says which run a request belongs to. */
function script() {
  const state = { phase: 1, listed: null as SeenSubagent[] | null, answered: false };
  let release!: () => void;
  const listedOnce = new Promise<void>((resolve) => (release = resolve));
  // One agent: it answers in plain text (no new_answer/vote round); so does its subagent's team.
  const handler = async (body: FakeChatRequestBody): Promise<FakeResponse> => {
    if (userText(body).includes('SUBTASK-LONG')) {
      // The subagent's own model: silent in the first run (the parent is killed meanwhile); in the
      // second it answers once the parent has seen it running.
      if (state.phase === 1) return { hang: true };
      await listedOnce;
      return { text: RESULT };
    }
    if (!toolNames(body).includes('spawn_subagents')) return { text: `Final: ${RESULT}` };
    const round = lastToolRound(body);
    if (state.phase === 1) {
      if (round === null) {
        return {
          toolCalls: [
            { name: 'spawn_subagents', arguments: { tasks: [{ task: SUBTASK }], background: true } },
          ],
        };
      }
      return { hang: true }; // the parent waits here until it is killed
    }
    if (round === null) return { toolCalls: [{ name: 'list_subagents', arguments: {} }] };
    if (round.names[0] === 'list_subagents') {
      state.listed = (JSON.parse(round.results[0]!) as { subagents: SeenSubagent[] }).subagents;
      release();
      return {
        toolCalls: state.listed.map((s) => ({
          name: 'subagent_result',
          arguments: { id: s.id, wait_seconds: 120 },
        })),
      };
    }
    const collected = `Collected: ${round.results.join(' | ')}`;
    if (!toolNames(body).includes('new_answer')) return { text: collected };
    if (state.answered)
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'done' } }] };
    state.answered = true;
    return { toolCalls: [{ name: 'new_answer', arguments: { content: collected } }] };
  };
  return { state, handler };
}

describe('subagents through a kill -9 and --continue', () => {
  it('re-attaches a subagent that was running: same id, started again, its result reaches the parent', async () => {
    const { state, handler } = script();
    fake.server.setHandler(handler);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('alpha', fake.server.url, {
          system_message: persona('alpha'),
          backend: { cwd: 'ws_alpha' },
        }),
      ],
      orchestrator: { coordination: { enable_subagents: true, subagent_default_timeout: 120 } },
    });

    // The first turn of an interactive session, killed while its subagent runs.
    const first = startCli(['--config', 'config.yaml', '--no-display'], {
      cwd,
      stdin: 'open',
      timeoutMs: 90_000,
    });
    first.child.stdin!.write('Add 21 and 21, with help.\n');
    let checkpointFile = '';
    await first.until(() => {
      const [logDir] = logDirs(cwd);
      const root = logDir ? path.join(logDir, 'subagents') : '';
      const [id] = root && fs.existsSync(root) ? fs.readdirSync(root) : [];
      if (!id) return false;
      checkpointFile = path.join(root, id, 'subagent.json');
      const running =
        fs.existsSync(checkpointFile) &&
        JSON.parse(fs.readFileSync(checkpointFile, 'utf8')).state === 'running';
      // …and its own run has called its model: it was really under way.
      return running && fake.server.requests.some((r) => r.body && userText(r.body).includes('SUBTASK-LONG'));
    }, 'the subagent checkpoint saying running and the subagent calling its model');
    first.child.kill('SIGKILL');
    expect((await first.result).signal).toBe('SIGKILL');
    const firstLog = logDirs(cwd)[0]!;
    const subagentId = path.basename(path.dirname(checkpointFile));

    // The killed turn is in the session store, unfinished, with its log folder.
    const sessions = path.join(cwd, '.massgen', 'sessions');
    const [sessionId] = fs.readdirSync(sessions).filter((n) => !n.startsWith('.'));
    const turn = JSON.parse(
      fs.readFileSync(path.join(sessions, sessionId!, 'turn_1', 'metadata.json'), 'utf8'),
    );
    expect(turn).toMatchObject({ unfinished: true, log_dir: firstLog });

    state.phase = 2;
    const next = await runCli(
      ['--config', 'config.yaml', '--no-display', '--continue', 'Collect what your helper found.'],
      {
        cwd,
        timeoutMs: 90_000,
      },
    );
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(`Turn 1 of session ${sessionId} did not finish`);

    // The parent of the new turn saw it running (re-attached), then got its result.
    expect(state.listed).toEqual([
      expect.objectContaining({ id: subagentId, state: 'running', restored: true }),
    ]);
    const secondLog = logDirs(cwd).find((d) => d !== firstLog)!;
    const events = readEvents(secondLog);
    const started = events.filter((e) => e.type === 'subagent.started');
    expect(started.map((e) => [e.subagentId, e.resumedFrom, e.task])).toEqual([
      [subagentId, firstLog, SUBTASK],
    ]);
    const finished = events.filter((e) => e.type === 'subagent.finished');
    expect(finished.map((e) => [e.subagentId, e.state, e.answer])).toEqual([
      [subagentId, 'completed', RESULT],
    ]);
    // The parent's answer holds the subagent's result.
    expect(next.stdout).toContain(`Collected: `);
    expect(next.stdout).toContain(RESULT);
    // Its checkpoint and its new run's logs are in the new turn's log folder.
    const moved = path.join(secondLog, 'subagents', subagentId);
    expect(JSON.parse(fs.readFileSync(path.join(moved, 'subagent.json'), 'utf8'))).toMatchObject({
      state: 'completed',
      answer: RESULT,
    });
    expect(fs.readdirSync(moved).some((name) => name.startsWith('log_'))).toBe(true);
    // And the session's turns: the killed one still unfinished, the new one finished.
    const turns = ['turn_1', 'turn_2'].map(
      (t) =>
        JSON.parse(fs.readFileSync(path.join(sessions, sessionId!, t, 'metadata.json'), 'utf8')).unfinished,
    );
    expect(turns).toEqual([true, false]);
  }, 180_000);
});
