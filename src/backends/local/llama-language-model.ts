import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  SharedV3Warning,
} from '@ai-sdk/provider';
import type { LlamaModel } from 'node-llama-cpp';
import type { LocalModelSettings } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { defaultThreads } from './default-threads.js';
import { acquireLocalModel, assertPromptFits, type LocalModelHandle } from './model-pool.js';
import {
  generateText,
  generateToolCall,
  generationError,
  jsonGrammar,
  tokenizePrompt,
  type Run,
} from './llama-generation.js';
import { renderPrompt } from './prompt.js';
import { toolCallGrammar } from './tool-grammar.js';
import { untilAborted } from '../../util/abort.js';

/** Output budget when the call sets no `maxOutputTokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1024;

const PROVIDER = 'local';

/** Tokens a tool call's JSON structure needs besides its strings (names, keys, quotes, braces). */
const STRUCTURE_TOKENS = 48;
/** Text whose token count estimates a model's characters per token. */
const SAMPLE_TEXT =
  'Once upon a time, a curious girl named Lily found a shiny red ball in the park. She asked her friends ' +
  'whether they wanted to play, and they laughed together until the sun went down behind the hills.';
const charsPerTokenCache = new WeakMap<LlamaModel, number>();

/**
 * Characters the strings of one tool call may use so the whole call fits `budget` tokens. Measured
 * from the model's own tokenizer, with a safety margin: unusual text packs fewer characters a token.
 */
function stringBudget(model: LlamaModel, budget: number): number {
  let ratio = charsPerTokenCache.get(model);
  if (ratio === undefined) {
    ratio = SAMPLE_TEXT.length / Math.max(1, model.tokenize(SAMPLE_TEXT).length);
    charsPerTokenCache.set(model, ratio);
  }
  return Math.floor(Math.max(16, budget - STRUCTURE_TOKENS) * ratio * 0.6);
}

/** What {@link LlamaLanguageModel} needs. */
export interface LlamaLanguageModelOptions {
  /** Shown as the model name (the config's `model`, e.g. an `hf:` reference or a file name). */
  modelId: string;
  /** This agent's registration in the model pool ({@link acquireLocalModel}). */
  handle: LocalModelHandle;
}

/**
 * An AI SDK `LanguageModelV3` running a GGUF model in-process with llama.cpp (node-llama-cpp), for use
 * with `createLanguageModelBackend` (or the AI SDK's `streamText`).
 *
 * - **Without tools** it streams free text as `text-delta` parts while tokens arrive, up to
 *   `maxOutputTokens` (default {@link DEFAULT_MAX_OUTPUT_TOKENS}) or the model's end of turn.
 * - **When a tool call is required** (`toolChoice` `required` or a named tool — the orchestrator asks
 *   for `required` on every coordination step) generation is constrained by a grammar to one JSON
 *   object `{"tool": <name>, "arguments": {...}}` over the offered tools, streamed as exactly one
 *   `tool-call` part and no text. If the output budget runs out mid-object the call finishes with
 *   `length` and no tool call.
 * - **With `auto`** (e.g. the final presentation) it answers in free text: a small model cannot be
 *   trusted to choose between text and a tool, and a text answer is what that step needs.
 * - `abortSignal` stops generation at the next token and the stream rejects with the signal's reason.
 * - Usage counts prompt tokens (with the part of the prompt reused from the agent's previous call as
 *   `cacheRead`) and generated tokens.
 */
export class LlamaLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly handle: LocalModelHandle;

  constructor(options: LlamaLanguageModelOptions) {
    this.modelId = options.modelId;
    this.handle = options.handle;
  }

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream } = await this.doStream(options);
    const content: LanguageModelV3Content[] = [];
    const warnings: SharedV3Warning[] = [];
    let text = '';
    let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
    const reader = stream.getReader();
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value;
      if (part.type === 'stream-start') warnings.push(...part.warnings);
      else if (part.type === 'text-delta') text += part.delta;
      else if (part.type === 'tool-call') content.push(part);
      else if (part.type === 'finish') finish = part;
      else if (part.type === 'error') throw part.error;
    }
    if (text !== '') content.unshift({ type: 'text', text });
    if (finish === undefined)
      throw new ProviderError(PROVIDER, `${PROVIDER}: generation ended early`, { retryable: true });
    return { content, finishReason: finish.finishReason, usage: finish.usage, warnings };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const signal = options.abortSignal;
    signal?.throwIfAborted();
    const warnings: SharedV3Warning[] = [];
    const session = await untilAborted(this.handle.session(), signal);

    const functionTools = (options.tools ?? []).filter(
      (tool): tool is LanguageModelV3FunctionTool => tool.type === 'function',
    );
    for (const tool of options.tools ?? []) {
      if (tool.type !== 'function')
        warnings.push({ type: 'unsupported', feature: `provider tool ${tool.name}` });
    }
    const choice = options.toolChoice;
    const tools =
      choice?.type === 'tool'
        ? functionTools.filter((tool) => tool.name === choice.toolName)
        : choice?.type === 'required'
          ? functionTools
          : [];

    const rendered = renderPrompt(options.prompt, {
      format: session.format,
      tools: tools.map((tool) => ({
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema,
      })),
      ...(choice === undefined ? {} : { toolChoice: choice }),
    });
    const prompt = tokenizePrompt(session, rendered);
    assertPromptFits(prompt.count, session.contextSize);

    const budget = Math.max(
      1,
      Math.min(options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, session.contextSize - prompt.count),
    );
    const grammar =
      tools.length > 0
        ? await toolCallGrammar(
            session.llama,
            tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema })),
            stringBudget(session.model, budget),
          )
        : options.responseFormat?.type === 'json'
          ? await jsonGrammar(session, options.responseFormat.schema)
          : undefined;
    signal?.throwIfAborted();

    // Stops generation when the caller aborts or stops reading (cancels the stream).
    const cancelled = new AbortController();
    const stop = signal === undefined ? cancelled.signal : AbortSignal.any([signal, cancelled.signal]);
    const run: Run = { session, options, prompt, budget, signal: stop };
    let closed = false;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      cancel: () => {
        closed = true;
        cancelled.abort(new Error('the stream was cancelled'));
      },
      start: (controller) => {
        const enqueue = (part: LanguageModelV3StreamPart): void => {
          if (!closed) controller.enqueue(part);
        };
        const fail = (error: unknown): void => {
          if (closed) return;
          closed = true;
          controller.error(error);
        };
        // Reject at once on abort; generation itself stops at its next token.
        const onAbort = (): void => fail(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });

        enqueue({ type: 'stream-start', warnings });
        enqueue({ type: 'response-metadata', modelId: this.modelId, timestamp: new Date() });
        const generation =
          tools.length > 0 && grammar !== undefined
            ? generateToolCall(run, grammar.grammar, tools, enqueue)
            : generateText(run, rendered, grammar?.grammar, enqueue);
        generation.then(
          () => {
            signal?.removeEventListener('abort', onAbort);
            if (closed) return;
            closed = true;
            controller.close();
          },
          (error: unknown) => {
            signal?.removeEventListener('abort', onAbort);
            fail(signal?.aborted === true ? signal.reason : generationError(error));
          },
        );
      },
    });
    return { stream };
  }
}

/**
 * Builds the model for one local agent: registers it in the shared pool (synchronously, no I/O) with
 * `threads` defaulting to {@link defaultThreads} and `gpu` to `auto`. The model loads on the first call.
 *
 * @param options.modelPath Absolute path of the GGUF file (already downloaded and checked by `prepare`).
 * @param options.modelId The name shown for the model (the config's `model`).
 */
export function createLlamaLanguageModel(options: {
  modelId: string;
  modelPath: string;
  local?: Pick<LocalModelSettings, 'threads' | 'contextSize' | 'gpu'>;
}): LlamaLanguageModel {
  const local = options.local;
  const handle = acquireLocalModel({
    modelPath: options.modelPath,
    gpu: local?.gpu ?? 'auto',
    threads: local?.threads ?? defaultThreads(),
    ...(local?.contextSize === undefined ? {} : { contextSize: local.contextSize }),
  });
  return new LlamaLanguageModel({ modelId: options.modelId, handle });
}

export { parseCutToolCall } from './llama-generation.js';
