import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { sleep } from '../../util/abort.js';
import { demoAnswers, type DemoPersona } from './demo-answers.js';
import type { DemoScene } from './demo-scene.js';
import { demoMove, seesEveryone, type DemoMove } from './demo-script.js';
import { readDemoTurn } from './demo-turn.js';

/** How one scripted agent types: characters per chunk and milliseconds between chunks (at pace 1). */
const TYPING: Record<DemoPersona, { chunk: number; delayMs: number }> = {
  ada: { chunk: 6, delayMs: 45 },
  grace: { chunk: 6, delayMs: 90 },
  linus: { chunk: 6, delayMs: 30 },
};
/** A presentation is long: it streams in larger pieces. */
const PRESENT = { chunk: 12, delayMs: 25 };

/** Options of {@link createDemoModel}. */
export interface DemoModelOptions {
  modelId: string;
  persona: DemoPersona;
  /** The run's team: the cues its agents act on. */
  scene: DemoScene;
  /** This agent's member number in `scene`. */
  member: number;
  /** Multiplies every pause: 1 is watchable, 0 streams at once. */
  pace: number;
}

let calls = 0;

/** Characters to tokens, as a rough tokenizer would count them (a view needs some figure). */
const tokens = (chars: number) => Math.max(1, Math.ceil(chars / 4));

function usage(promptChars: number, outputChars: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: tokens(promptChars), noCache: tokens(promptChars), cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: tokens(outputChars), text: tokens(outputChars), reasoning: 0 },
  };
}

/** Splits by code points, so a chunk never cuts a character in half. */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

/**
 * One scripted agent as an AI SDK `LanguageModelV3`: it reads the prompt massgen sent, takes its move
 * from the script, and streams it the way a provider model does — text deltas, then a tool call, then
 * `finish` with token counts — so it goes through the same adapter (`createLanguageModelBackend`) as
 * every provider backend. No network, no key, no model.
 */
export function createDemoModel(options: DemoModelOptions): LanguageModelV3 {
  const doStream = async (call: LanguageModelV3CallOptions) => {
    const signal = call.abortSignal ?? new AbortController().signal;
    signal.throwIfAborted();
    // The reader cancels once it has the `finish` part, or on an abort: nothing is enqueued after that.
    let cancelled = false;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        const enqueue = (part: LanguageModelV3StreamPart) => {
          if (!cancelled) controller.enqueue(part);
        };
        play(options, call, signal, enqueue).then(
          () => !cancelled && controller.close(),
          (error: unknown) => !cancelled && controller.error(error),
        );
      },
      cancel: () => {
        cancelled = true;
      },
    });
    return { stream };
  };
  return {
    specificationVersion: 'v3',
    provider: 'demo',
    modelId: options.modelId,
    supportedUrls: {},
    doStream,
    async doGenerate() {
      throw new Error('the demo model only streams');
    },
  };
}

async function play(
  options: DemoModelOptions,
  call: LanguageModelV3CallOptions,
  signal: AbortSignal,
  enqueue: (part: LanguageModelV3StreamPart) => void,
): Promise<void> {
  const turn = readDemoTurn(call);
  const known = demoAnswers(turn.question);
  const move = demoMove(options.persona, turn, known);
  const typing = move.kind === 'text' ? PRESENT : TYPING[options.persona];
  const type = async (text: string, id: string) => {
    if (text === '') return;
    enqueue({ type: 'text-start', id });
    for (const piece of pieces(text, typing.chunk)) {
      await sleep(typing.delayMs * options.pace, signal);
      enqueue({ type: 'text-delta', id, delta: piece });
    }
    enqueue({ type: 'text-end', id });
  };
  const promptChars = JSON.stringify(call.prompt).length;
  enqueue({ type: 'stream-start', warnings: [] });
  if (move.kind === 'text') {
    await type(move.text, 'text');
    enqueue({
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(promptChars, move.text.length),
    });
    return;
  }
  await type(move.say, 'say');
  // A revision waits for a teammate's counted vote, so that it visibly resets it (see DemoScene).
  if (move.kind === 'answer' && move.revises !== undefined)
    await options.scene.voteSeeing(options.member, move.revises, signal);
  const { name, input } = callOf(move);
  const id = `call_demo_${++calls}`;
  const json = JSON.stringify(input);
  // A pause after any cue: the teammate's vote is counted before this call can arrive.
  await sleep(typing.delayMs * options.pace, signal);
  enqueue({ type: 'tool-input-start', id, toolName: name });
  enqueue({ type: 'tool-input-delta', id, delta: json });
  enqueue({ type: 'tool-input-end', id });
  enqueue({ type: 'tool-call', toolCallId: id, toolName: name, input: json });
  enqueue({
    type: 'finish',
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: usage(promptChars, move.say.length + json.length),
  });
  if (move.kind === 'vote' && seesEveryone(turn, known, options.scene.roster))
    options.scene.recordVote(
      options.member,
      [...turn.answers.values()].map((text) => text.trim()),
    );
}

function callOf(move: Exclude<DemoMove, { kind: 'text' }>): { name: string; input: Record<string, unknown> } {
  if (move.kind === 'answer') return { name: 'new_answer', input: { content: move.content } };
  if (move.kind === 'vote') return { name: 'vote', input: { agent_id: move.agentId, reason: move.reason } };
  return { name: move.name, input: move.input };
}
