/**
 * Subagents through the built CLI against the fake server: a parent spawns two background subagents,
 * is restarted by a peer's new answer, and still collects both results — no subagent request is
 * cancelled, each subagent's checkpoint and log folder sit in the parent's log folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';
import { gate, lastToolRound, userText } from './subagents.test-support.js';

const fake = useFakeServer();
const QUESTION = 'What is 6 times 7? Split the work.';

function restartScript() {
  const spawned = gate();
  const restarted = gate();
  const alphaAnswered = gate();
  let spawnCalled = false;
  const handler = async (body: FakeChatRequestBody): Promise<FakeResponse> => {
    const id = agentOf(body);
    const sub = /SUBTASK-(A|B)/.exec(userText(body));
    if (sub) {
      // A subagent's model call: held until the parent's turn has been restarted.
      await restarted.promise;
      const answer = `Result ${sub[1]}: 21 + 21 = 42.`;
      return toolNames(body).includes('new_answer')
        ? { toolCalls: [{ name: 'new_answer', arguments: { content: answer } }] }
        : { text: answer };
    }
    if (!toolNames(body).includes('new_answer')) return { text: `Final from ${id}: 42 (A and B agree).` };
    if (id === 'beta') {
      if (alphaAnswered.opened || votableIds(body).includes('agent1')) {
        await alphaAnswered.promise;
        return {
          toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'alpha has both parts' } }],
        };
      }
      await spawned.promise;
      return { toolCalls: [{ name: 'new_answer', arguments: { content: 'Answer by beta: 42.' } }] };
    }
    // alpha, the parent.
    if (alphaAnswered.opened) {
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'mine is complete' } }] };
    }
    const round = lastToolRound(body);
    if (round?.names[0] === 'spawn_subagents') {
      spawned.open();
      return { hang: true }; // until beta's answer restarts this turn
    }
    if (round?.names[0] === 'list_subagents') {
      const { subagents } = JSON.parse(round.results[0]!) as { subagents: { id: string }[] };
      return {
        toolCalls: subagents.map((s) => ({
          name: 'subagent_result',
          arguments: { id: s.id, wait_seconds: 120 },
        })),
      };
    }
    if (round?.names[0] === 'subagent_result') {
      alphaAnswered.open();
      return {
        toolCalls: [
          { name: 'new_answer', arguments: { content: `Answer by alpha: ${round.results.join(' | ')}` } },
        ],
      };
    }
    if (!spawnCalled) {
      spawnCalled = true;
      return {
        toolCalls: [
          {
            name: 'spawn_subagents',
            arguments: {
              tasks: [{ task: 'SUBTASK-A: compute 21 + 21' }, { task: 'SUBTASK-B: check 6 x 7' }],
              background: true,
            },
          },
        ],
      };
    }
    restarted.open();
    return { toolCalls: [{ name: 'list_subagents', arguments: {} }] };
  };
  return handler;
}

function subagentWorkdir(coordination: Record<string, unknown> = {}): string {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: ['alpha', 'beta'].map((id) =>
      agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws_${id}` } }),
    ),
    orchestrator: {
      on_new_answer: 'restart',
      coordination: { enable_subagents: true, subagent_default_timeout: 120, ...coordination },
    },
  });
  return cwd;
}

describe('subagents through the CLI', () => {
  it('survive a restart of the parent turn: both results collected, no subagent request cancelled', async () => {
    fake.server.setHandler(restartScript());
    const cwd = subagentWorkdir();

    const result = await runCli(['--config', 'config.yaml', '--no-display', QUESTION], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const logDir = onlyLogDir(cwd);
    const events = readEvents(logDir);
    expect(events.some((e) => e.type === 'agent.turn.restarted' && e.agentId === 'alpha')).toBe(true);
    const finished = events.filter((e) => e.type === 'subagent.finished');
    expect(finished.map((e) => [e.agentId, e.state])).toEqual([
      ['alpha', 'completed'],
      ['alpha', 'completed'],
    ]);
    expect(finished.map((e) => e.answer).sort()).toEqual([
      'Result A: 21 + 21 = 42.',
      'Result B: 21 + 21 = 42.',
    ]);
    // The subagents' own events came through, tagged with their id and parent agent.
    const forwarded = events.filter((e) => e.type === 'subagent.event');
    expect(new Set(forwarded.map((e) => e.subagentId)).size).toBe(2);
    expect(forwarded.some((e) => e.event.type === 'run.finished')).toBe(true);

    const answer = events.find((e) => e.type === 'answer.submitted' && e.agentId === 'alpha');
    expect(JSON.stringify(answer)).toContain('Result A');
    expect(JSON.stringify(answer)).toContain('Result B');

    // The subagents' own model calls (their question is the task): none was cancelled by the restart.
    const subRequests = fake.server.requests.filter((r) => r.body && /SUBTASK-/.test(userText(r.body)));
    expect(subRequests.length).toBeGreaterThanOrEqual(2);
    expect(subRequests.filter((r) => r.aborted)).toEqual([]);

    // Checkpoints: one small JSON per subagent in the parent's log folder, beside its run's logs.
    const ids = finished.map((e) => e.subagentId);
    for (const id of ids) {
      const dir = path.join(logDir, 'subagents', id);
      const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, 'subagent.json'), 'utf8')) as {
        state: string;
        answer: string;
      };
      expect(checkpoint.state).toBe('completed');
      expect(checkpoint.answer).toMatch(/^Result [AB]/);
      expect(fs.readdirSync(dir).some((name) => name.startsWith('log_'))).toBe(true);
    }
  }, 120_000);
});
