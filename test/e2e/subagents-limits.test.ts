/**
 * Subagent limits and controls through the built CLI against the fake server: a subagent at
 * `max_subagent_depth` is not offered `spawn_subagents` and its call of it is a tool error that starts
 * nothing; a spawn past `subagent_max_concurrent` is refused whole; `send_message_to_subagent` reaches
 * the child's model at its next step, and `cancel_subagent` ends it cancelled.
 */
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { gate, textOf } from './subagents.test-support.js';

const fake = useFakeServer();

/** The results of the tool calls that end the request's messages. */
function lastResults(body: FakeChatRequestBody): string[] {
  const messages = body.messages ?? [];
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--)
    results.unshift(textOf(messages[i]!.content));
  return results;
}

const STEER = 'STEER-TEXT: use base ten';

function script() {
  const seen = {
    childTools: null as string[] | null,
    childSpawnError: '',
    refusal: '',
    delivered: '',
    cancelled: '',
    steerInChild: false,
    subTwoRequests: 0,
  };
  const childWaiting = gate();
  const steered = gate();
  const steerSeen = gate();
  let id = '';
  let alphaStep = 0;
  let childStep = 0;
  const handler = async (body: FakeChatRequestBody): Promise<FakeResponse> => {
    const all = JSON.stringify(body.messages ?? []);
    if (all.includes('SUB-TWO') && !toolNames(body).includes('spawn_subagents')) seen.subTwoRequests++;
    if (all.includes('SUB-ONE') && !toolNames(body).includes('cancel_subagent')) {
      // The subagent's model, one level down: at the depth limit.
      childStep++;
      if (childStep === 1) {
        seen.childTools = toolNames(body);
        return { toolCalls: [{ name: 'spawn_subagents', arguments: { tasks: [{ task: 'deeper' }] } }] };
      }
      if (childStep === 2) {
        seen.childSpawnError = lastResults(body).join('');
        childWaiting.open();
        await steered.promise;
        return { toolCalls: [{ name: 'spawn_subagents', arguments: { tasks: [{ task: 'deeper' }] } }] };
      }
      seen.steerInChild = all.includes(STEER);
      steerSeen.open();
      return { hang: true }; // until cancel_subagent stops it
    }
    if (!toolNames(body).includes('spawn_subagents')) return { text: 'Final: done.' };
    alphaStep++;
    const results = lastResults(body);
    switch (alphaStep) {
      case 1:
        return {
          toolCalls: [
            { name: 'spawn_subagents', arguments: { tasks: [{ task: 'SUB-ONE: count' }], background: true } },
          ],
        };
      case 2:
        id = (JSON.parse(results[0]!) as { subagents: { id: string }[] }).subagents[0]!.id;
        return {
          toolCalls: [
            { name: 'spawn_subagents', arguments: { tasks: [{ task: 'SUB-TWO: more' }], background: true } },
          ],
        };
      case 3:
        seen.refusal = results[0]!;
        await childWaiting.promise;
        return { toolCalls: [{ name: 'send_message_to_subagent', arguments: { id, text: STEER } }] };
      case 4:
        seen.delivered = results[0]!;
        steered.open();
        await steerSeen.promise;
        return { toolCalls: [{ name: 'cancel_subagent', arguments: { id } }] };
      default:
        seen.cancelled = results[0] ?? '';
        return { text: 'Done.' };
    }
  };
  return { seen, handler, id: () => id };
}

describe('subagent limits and controls through the CLI', () => {
  it('depth and concurrency refusals; a message reaches the child; cancel ends it', async () => {
    const { seen, handler, id } = script();
    fake.server.setHandler(handler);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('alpha', fake.server.url, {
          system_message: persona('alpha'),
          backend: { cwd: 'ws_alpha' },
        }),
      ],
      orchestrator: {
        coordination: {
          enable_subagents: true,
          subagent_default_timeout: 120,
          subagent_max_concurrent: 1,
          max_subagent_depth: 1,
        },
      },
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Count, with a helper.'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    // Depth: the subagent is not offered the tool, and its call of it is a tool error.
    expect(seen.childTools).not.toContain('spawn_subagents');
    expect(seen.childSpawnError).toContain('There is no tool named "spawn_subagents"');
    // Concurrency: the second spawn is refused whole; its task never reached a model.
    expect(seen.refusal).toContain('subagent_max_concurrent is 1: 1 running, 1 asked');
    expect(seen.subTwoRequests).toBe(0);
    // Steering: delivered, and in the child's next model request.
    expect(JSON.parse(seen.delivered)).toEqual({ delivered: true });
    expect(seen.steerInChild).toBe(true);
    // Cancel: the child ends cancelled.
    expect(JSON.parse(seen.cancelled)).toMatchObject({ id: id(), state: 'cancelled' });

    const events = readEvents(onlyLogDir(cwd));
    expect(events.filter((e) => e.type === 'subagent.started').map((e) => e.subagentId)).toEqual([id()]);
    const finished = events.filter((e) => e.type === 'subagent.finished');
    expect(finished.map((e) => [e.subagentId, e.state])).toEqual([[id(), 'cancelled']]);
    const childEvents = events.flatMap((e) => (e.type === 'subagent.event' ? [e.event] : []));
    expect(childEvents.some((e) => e.type === 'human.message' && JSON.stringify(e).includes(STEER))).toBe(
      true,
    );
    // The deeper spawn started nothing: no subagent event of the child is itself a subagent's.
    expect(childEvents.some((e) => e.type.startsWith('subagent.'))).toBe(false);
  }, 150_000);
});
