import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import { ScriptedBackend, type ScriptStep } from '../../src/testing/scripted-backend.js';
import type { VisibleAnswer, WorkspaceHooks } from '../../src/types/workspace.js';
import { gateOn, requestText } from '../support/harness.js';

/** Records what the engine asks of the workspaces; rewrites `/ws/<author>` into the viewer's view. */
function recordingWorkspaces() {
  const log: string[] = [];
  const hooks: WorkspaceHooks = {
    describe: (agentId, phase) => `WORKSPACE NOTE for ${agentId} (${phase})`,
    snapshot: async (agentId, label) => {
      log.push(`snapshot ${agentId} ${label}`);
    },
    showPeers: async (viewerId, answers: readonly VisibleAnswer[]) => {
      log.push(`show ${viewerId}: ${answers.map((a) => `${a.anonymousId}=${a.label}`).join(',') || '-'}`);
    },
    rewrite: (content, authorId, viewerId) =>
      content.replaceAll(`/ws/${authorId}`, `/peers/${viewerId}/of-${authorId}`),
  };
  return { hooks, log };
}

const answer = (content: string): ScriptStep => ({
  toolCalls: [{ name: 'new_answer', arguments: { content } }],
});
const vote = (id: string): ScriptStep => ({
  toolCalls: [{ name: 'vote', arguments: { agent_id: id, reason: 'r' } }],
});

describe('workspaces in the protocol', () => {
  it('snapshots before an answer is visible, shows peers the files of the answers they see, and rewrites paths', async () => {
    const { hooks, log } = recordingWorkspaces();
    const aAnswered = gateOn((e) => e.type === 'answer.submitted' && e.agentId === 'a');
    const a = new ScriptedBackend([answer('see /ws/a/main.py'), vote('agent1'), { text: 'final /ws/b/x' }]);
    // b holds its first step until a has answered, so it gets a's answer as an update mid-turn.
    const b = new ScriptedBackend([
      { waitFor: aAnswered.wait, toolCalls: [{ name: 'lookup', arguments: {} }] },
      vote('agent1'),
    ]);
    const orchestrator = new Orchestrator({
      agents: [
        { id: 'a', backend: a },
        {
          id: 'b',
          backend: b,
          tools: {
            list: () => [{ name: 'lookup', description: 'l', parameters: { type: 'object' } }],
            execute: async () => ({ content: 'ok' }),
          },
        },
      ],
      workspaces: hooks,
      settings: { agentTurnTimeoutMs: 5_000 },
    });
    const recorder = new EventRecorder();
    for await (const event of orchestrator.run('Build it')) {
      recorder.events.push(event);
      aAnswered.check(event);
    }
    expect(recorder.finished?.status).toBe('completed');

    // The snapshot comes first: at the time anyone is shown a's answer, its files exist.
    const snapshot = log.indexOf('snapshot a agent1.1');
    expect(snapshot).toBeGreaterThanOrEqual(0);
    expect(log.indexOf('show b: agent1=agent1.1')).toBeGreaterThan(snapshot);
    // Each turn starts by showing the files of the answers in view (none yet for the first turns).
    expect(log.slice(0, 2).sort()).toEqual(['show a: -', 'show b: -']);

    // b got a's answer as an update, with a's paths rewritten into b's view of them.
    const update = b.requests[1]?.messages.at(-1)?.content ?? '';
    expect(update).toContain('see /peers/b/of-a/main.py');
    expect(update).not.toContain('/ws/a/');
    // Every prompt carries the workspace note; the presentation's says so.
    expect(requestText(a.requests[0])).toContain('WORKSPACE NOTE for a (coordination)');
    expect(a.requests.at(-1)?.messages[0]?.content).toContain('WORKSPACE NOTE for a (presentation)');
  });

  it('the single-agent shortcut gets its workspace note but no peers', async () => {
    const { hooks, log } = recordingWorkspaces();
    const solo = new ScriptedBackend([{ text: 'done' }]);
    const orchestrator = new Orchestrator({ agents: [{ id: 'solo', backend: solo }], workspaces: hooks });
    for await (const _event of orchestrator.run('q')) {
      // drain
    }
    expect(solo.requests[0]?.messages[0]?.content).toContain('WORKSPACE NOTE for solo (presentation)');
    expect(log).toEqual([]);
  });
});
