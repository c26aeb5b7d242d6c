import { describe, expect, it } from 'vitest';
import { Orchestrator } from '../../src/coordination/orchestrator.js';
import type { CoordinationSettings } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import {
  gate,
  ScriptedBackend,
  step,
  type RecordedRequest,
  type ScriptStep,
} from '../../src/testing/scripted-backend.js';
import type { Backend, ModelRequest, ModelStreamPart } from '../../src/types/backend.js';
import type { RunEvent } from '../../src/types/events.js';
import { createSecretScrubber, SECRET_MASK } from '../../src/util/secret-scrubber.js';

/** 40 characters: five 8-character pieces when it starts on a piece boundary. */
const KEY = 'sk-live-Zq8Xw3Pv7Ty1Rn5Mk2Jh9Gf4Ds6Ba0Lc';
const scrubber = createSecretScrubber([KEY]);

/** Every 8-character piece of the key: none may appear anywhere (they would let one rejoin it). */
const FRAGMENTS = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));
const leaks = (text: string) => FRAGMENTS.filter((f) => text.includes(f));

/** Pads `text` with spaces to a multiple of 8, so ScriptedBackend streams it in 8-character deltas. */
const eightWise = (text: string): { text: string; chunks: number } => {
  const padded = text.padEnd(Math.ceil(text.length / 8) * 8, ' ');
  return { text: padded, chunks: padded.length / 8 };
};

/**
 * A backend that streams a reasoning trace in 8-character `reasoning-delta` parts before its first
 * scripted reply (ScriptedBackend streams text deltas only).
 */
class ReasoningFirst implements Backend {
  readonly type = 'scripted';
  readonly model = 'reasoning-first';
  private reasoned = false;
  constructor(
    readonly inner: ScriptedBackend,
    private readonly reasoning: string,
  ) {}
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    if (!this.reasoned) {
      this.reasoned = true;
      for (let i = 0; i < this.reasoning.length; i += 8)
        yield { type: 'reasoning-delta', text: this.reasoning.slice(i, i + 8) };
    }
    yield* this.inner.stream(request);
  }
}

const offersVoteFor = (request: RecordedRequest, id: string) => {
  const vote = request.tools.find((t) => t.name === 'vote');
  const ids = (vote?.parameters as { properties?: { agent_id?: { enum?: string[] } } } | undefined)
    ?.properties?.agent_id?.enum;
  return ids?.includes(id) ?? false;
};
const presenting = (request: RecordedRequest) => !request.tools.some((t) => t.name === 'new_answer');

async function run(
  agents: { id: string; backend: Backend }[],
  settings: Partial<CoordinationSettings> = {},
  onEvent: (event: RunEvent) => void = () => {},
) {
  const orchestrator = new Orchestrator({
    agents: agents.map((a) => ({ ...a, maxRetries: 0 })),
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000, ...settings },
    scrubber,
  });
  const recorder = new EventRecorder();
  for await (const event of orchestrator.run('Which key do I use?')) {
    recorder.events.push(event);
    onEvent(event);
  }
  return recorder;
}

/** The text of each text stream (agent, phase, kind, in order), joined from its deltas. */
function streams(events: readonly RunEvent[]): { key: string; text: string; deltas: string[] }[] {
  const out: { key: string; text: string; deltas: string[] }[] = [];
  const open = new Map<string, { key: string; text: string; deltas: string[] }>();
  for (const e of events) {
    if (e.type !== 'agent.text.start' && e.type !== 'agent.text.delta' && e.type !== 'agent.text.end')
      continue;
    const key = `${e.agentId}/${e.phase}/${e.kind}`;
    if (e.type === 'agent.text.start') {
      const stream = { key, text: '', deltas: [] };
      open.set(key, stream);
      out.push(stream);
    } else if (e.type === 'agent.text.delta') {
      const stream = open.get(key);
      if (!stream) throw new Error(`delta outside a stream: ${key}`);
      stream.text += e.text;
      stream.deltas.push(e.text);
    } else open.delete(key);
  }
  expect([...open.keys()], 'every stream is ended').toEqual([]);
  return out;
}

describe('a secret streamed in pieces', () => {
  it('never reaches the events, the peers’ prompts or the final answer, whole or in rejoinable pieces', async () => {
    const thinking = `I will look the key up: it is ${KEY}, then answer.`;
    const said = `Found it. The key is ${KEY} — use it as the bearer token.`;
    const leakyScript: ScriptStep = (request) => {
      if (presenting(request)) return eightWise(`Final: put ${KEY} in the Authorization header.`);
      if (offersVoteFor(request, 'agent1')) return step.vote('agent1', 'mine is complete');
      return {
        ...eightWise(said),
        toolCalls: [{ name: 'new_answer', arguments: { content: `Use the key ${KEY} for every call.` } }],
      };
    };
    const leaky = new ScriptedBackend(
      Array.from({ length: 6 }, () => leakyScript),
      { model: 'leaky' },
    );
    // The peer answers once the leaky answer is in, so its next turn reads it and votes for it.
    const leakyAnswered = gate();
    const peerScript: ScriptStep = (request) =>
      offersVoteFor(request, 'agent1')
        ? step.vote('agent1', `agent1 is right that ${KEY} works`)
        : { ...step.answer('I do not know the key.'), waitFor: leakyAnswered.wait };
    const peer = new ScriptedBackend(
      Array.from({ length: 6 }, () => peerScript),
      { model: 'peer' },
    );

    const recorder = await run(
      [
        { id: 'leaky', backend: new ReasoningFirst(leaky, thinking) },
        { id: 'peer', backend: peer },
      ],
      {},
      (event) => {
        if (event.type === 'answer.submitted' && event.agentId === 'leaky') leakyAnswered.open();
      },
    );

    expect(recorder.finished).toMatchObject({ status: 'completed', winnerId: 'leaky' });
    // The key was streamed in 8-character deltas, and none of them got out.
    const all = JSON.stringify(recorder.events);
    expect(leaks(all)).toEqual([]);
    const texts = streams(recorder.events);
    expect(texts.map((s) => s.key)).toEqual(
      expect.arrayContaining([
        'leaky/coordination/reasoning',
        'leaky/coordination/text',
        'leaky/presentation/text',
      ]),
    );
    // Each stream's deltas join to the scrubbed whole text, and no delta is empty.
    expect(texts.find((s) => s.key === 'leaky/coordination/reasoning')?.text).toBe(scrubber.text(thinking));
    expect(texts.find((s) => s.key === 'leaky/coordination/text')?.text.trimEnd()).toBe(scrubber.text(said));
    for (const s of texts) expect(s.deltas.filter((d) => d === '')).toEqual([]);
    // Ordinary text is not held back more than the key needs: the opening words come in their own delta.
    expect(texts.find((s) => s.key === 'leaky/coordination/text')?.deltas[0]).toBe('Found it');

    // What the agents submitted reaches the views, the peers and the user scrubbed.
    expect(recorder.ofType('answer.submitted').find((a) => a.agentId === 'leaky')?.content).toBe(
      `Use the key ${SECRET_MASK} for every call.`,
    );
    expect(recorder.finished.finalAnswer).toBe(`Final: put ${SECRET_MASK} in the Authorization header.`);
    const peerPrompts = peer.requests.map((r) => JSON.stringify(r.messages));
    expect(peerPrompts.some((p) => p.includes(`Use the key ${SECRET_MASK} for every call.`))).toBe(true);
    for (const prompt of peerPrompts) expect(leaks(prompt)).toEqual([]);
    // The presenter reads the peer's vote reason: scrubbed too.
    const presentation = leaky.requests.find(presenting);
    expect(JSON.stringify(presentation?.messages)).toContain(`agent1 is right that ${SECRET_MASK} works`);
    for (const request of leaky.requests.slice(1))
      expect(leaks(JSON.stringify(request.messages))).toEqual([]);
  });

  it('a stream cut off mid-key (the turn is restarted) shows what it held, with the part of the key masked', async () => {
    // `peer` starts streaming the key, then stalls mid-key; `fast` answers meanwhile, and with
    // on_new_answer: restart the stalled turn is abandoned. Its stream still ends, with nothing lost
    // but the piece of the key.
    const stalled: ScriptStep = (request) => {
      if (presenting(request)) return step.text('Final: nothing.');
      if (offersVoteFor(request, 'agent2')) return step.vote('agent2', 'fine');
      return { hang: true };
    };
    class StallsMidKey implements Backend {
      readonly type = 'scripted';
      readonly model = 'stalls';
      calls = 0;
      constructor(readonly inner: ScriptedBackend) {}
      async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
        if (this.calls++ === 0) {
          for (const piece of ['The key: ', KEY.slice(0, 8), KEY.slice(8, 16), KEY.slice(16, 24)])
            yield { type: 'text-delta', text: piece };
        }
        yield* this.inner.stream(request);
      }
    }
    const slow = new StallsMidKey(new ScriptedBackend(Array.from({ length: 4 }, () => stalled)));
    const fast = new ScriptedBackend(
      [
        { ...step.answer('Rotate the key first.'), delayMs: 20 },
        step.vote('agent2', 'mine'),
        step.text('Final: rotate the key first.'),
      ],
      { model: 'fast' },
    );
    const recorder = await run(
      [
        { id: 'slow', backend: slow },
        { id: 'fast', backend: fast },
      ],
      { onNewAnswer: 'restart' },
    );
    expect(recorder.finished.status).toBe('completed');
    expect(recorder.ofType('agent.turn.restarted').map((e) => e.agentId)).toContain('slow');
    const first = streams(recorder.events).find((s) => s.key === 'slow/coordination/text');
    expect(first?.text).toBe(`The key: ${SECRET_MASK}`);
    expect(leaks(JSON.stringify(recorder.events))).toEqual([]);
  });
});
