import { randomInt, randomUUID } from 'node:crypto';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';
import type {
  LlamaCompletionGenerationOptions,
  LlamaCompletionResponse,
  LlamaGrammar,
  Token,
  LlamaModel,
} from 'node-llama-cpp';
import { parsePartialJson } from 'ai';
import { TokenBias } from 'node-llama-cpp';
import type { LocalModelSettings } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { defaultThreads } from './default-threads.js';
import {
  acquireLocalModel,
  assertPromptFits,
  type LocalModelHandle,
  type LocalModelSession,
} from './model-pool.js';
import { renderPrompt, type RenderedPrompt } from './prompt.js';
import {
  closingTokenBias,
  jsonSchemaGrammar,
  parseToolCall,
  toolCallGrammar,
  repairArguments,
  validateArguments,
} from './tool-grammar.js';
import { untilAborted } from '../../util/abort.js';

/** Output budget when the call sets no `maxOutputTokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 1024;
/** Sampling temperature for free text when the call sets none. */
export const DEFAULT_TEXT_TEMPERATURE = 0.7;
/** Sampling temperature for tool-call JSON when the call sets none: small models stay on track. */
export const DEFAULT_TOOL_TEMPERATURE = 0.2;
/** Tokens before the end of the budget at which tool-call JSON is nudged to close (at most). */
const CLOSING_RESERVE = 64;

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

interface TokenizedPrompt {
  /** Tokens to pass to `LlamaCompletion` (it prepends the BOS token itself when the model wants one). */
  tokens: Token[];
  /** Tokens the context will hold, BOS included. */
  count: number;
  /** Leading tokens already in the sequence from the previous call (llama.cpp reuses them). */
  cached: number;
}

interface Run {
  session: LocalModelSession;
  options: LanguageModelV3CallOptions;
  prompt: TokenizedPrompt;
  /** Output tokens allowed: `maxOutputTokens`, capped by the room left in the context. */
  budget: number;
  signal: AbortSignal | undefined;
}

type Enqueue = (part: LanguageModelV3StreamPart) => void;

function tokenizePrompt(session: LocalModelSession, rendered: RenderedPrompt): TokenizedPrompt {
  const { model, sequence } = session;
  const tokens = rendered.text.tokenize(model.tokenizer);
  const bos = model.tokens.bos;
  const prependsBos = model.tokens.shouldPrependBosToken && bos !== null;
  // Chat templates usually start with BOS themselves; LlamaCompletion adds its own, so drop theirs.
  if (prependsBos && tokens[0] === bos) tokens.shift();
  const full = prependsBos && bos !== null ? [bos, ...tokens] : tokens;
  const previous = sequence.contextTokens;
  let cached = 0;
  while (cached < previous.length && cached < full.length - 1 && previous[cached] === full[cached]) cached++;
  return { tokens, count: full.length, cached };
}

async function jsonGrammar(
  session: LocalModelSession,
  schema: unknown,
): Promise<{ grammar: LlamaGrammar; exact: boolean }> {
  if (schema === undefined) return { grammar: await session.llama.getGrammarFor('json'), exact: true };
  return jsonSchemaGrammar(session.llama, schema);
}

/** Sampling options shared by both modes. */
function sampling(run: Run, defaultTemperature: number): LlamaCompletionGenerationOptions {
  const { options } = run;
  return {
    temperature: options.temperature ?? defaultTemperature,
    ...(options.topP === undefined ? {} : { topP: options.topP }),
    ...(options.topK === undefined ? {} : { topK: options.topK }),
    // llama.cpp's default seed is the current second: agents asking the same thing at once would all
    // sample the same answer.
    seed: options.seed ?? randomInt(0x7fffffff),
    maxTokens: run.budget,
    // Stop at the end of the context instead of silently dropping the start of the prompt.
    disableContextShift: true,
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  };
}

async function generateText(
  run: Run,
  rendered: RenderedPrompt,
  grammar: LlamaGrammar | undefined,
  enqueue: Enqueue,
): Promise<void> {
  const { options } = run;
  const id = 'text-0';
  let started = false;
  let outputTokens = 0;
  const response = await run.session.completion.generateCompletionWithMeta(run.prompt.tokens, {
    ...sampling(run, DEFAULT_TEXT_TEMPERATURE),
    ...(grammar === undefined
      ? {}
      : { grammar, repeatPenalty: false, tokenBias: closingBias(run, () => outputTokens) }),
    customStopTriggers: [...rendered.stopTriggers, ...(options.stopSequences ?? [])],
    ...(options.presencePenalty === undefined && options.frequencyPenalty === undefined
      ? {}
      : {
          repeatPenalty: {
            ...(options.presencePenalty === undefined ? {} : { presencePenalty: options.presencePenalty }),
            ...(options.frequencyPenalty === undefined ? {} : { frequencyPenalty: options.frequencyPenalty }),
          },
        }),
    onToken: (tokens) => {
      outputTokens += tokens.length;
    },
    onTextChunk: (text) => {
      if (text === '') return;
      if (!started) {
        started = true;
        enqueue({ type: 'text-start', id });
      }
      enqueue({ type: 'text-delta', id, delta: text });
    },
  });
  if (started) enqueue({ type: 'text-end', id });
  enqueue({
    type: 'finish',
    finishReason: finishReason(response, response.metadata.stopReason === 'maxTokens' ? 'length' : 'stop'),
    usage: usage(run.prompt, generatedTokens(response, outputTokens, run)),
  });
}

/**
 * Tokens a generation produced. At the token budget node-llama-cpp drops, unreported, the tokens it was
 * holding back as the possible start of a stop trigger; the budget was still spent in full.
 */
function generatedTokens(response: LlamaCompletionResponse, reported: number, run: Run): number {
  return response.metadata.stopReason === 'maxTokens' ? Math.max(reported, run.budget) : reported;
}

async function generateToolCall(
  run: Run,
  grammar: LlamaGrammar,
  tools: readonly LanguageModelV3FunctionTool[],
  enqueue: Enqueue,
): Promise<void> {
  const names = tools.map((tool) => tool.name);
  let outputTokens = 0;
  let response: LlamaCompletionResponse | undefined;
  // A second try only when the first answer breaks the schema in a way the grammar could not prevent.
  for (let attempt = 1; attempt <= 2; attempt++) {
    let generated = 0;
    response = await run.session.completion.generateCompletionWithMeta(run.prompt.tokens, {
      ...sampling(run, DEFAULT_TOOL_TEMPERATURE),
      grammar,
      // JSON repeats quotes and braces by nature; penalising them pushes the model off course.
      repeatPenalty: false,
      tokenBias: closingBias(run, () => generated),
      onToken: (tokens) => {
        generated += tokens.length;
      },
    });
    outputTokens += generatedTokens(response, generated, run);
    const parsed = await parseCutToolCall(response, names);
    if (typeof parsed === 'string') break;
    const tool = tools.find((t) => t.name === parsed.toolName);
    parsed.input = repairArguments(tool?.inputSchema, parsed.input);
    const invalid = validateArguments(tool?.inputSchema, parsed.input);
    if (invalid !== undefined && attempt === 1) continue;
    enqueue({
      type: 'tool-call',
      toolCallId: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      toolName: parsed.toolName,
      input: JSON.stringify(parsed.input),
    });
    enqueue({
      type: 'finish',
      finishReason: finishReason(response, 'tool-calls'),
      usage: usage(run.prompt, outputTokens),
    });
    return;
  }
  // Cut off before the object closed: no call, like a hosted model hitting max_tokens mid-call.
  enqueue({
    type: 'finish',
    finishReason: finishReason(response, response?.metadata.stopReason === 'maxTokens' ? 'length' : 'other'),
    usage: usage(run.prompt, outputTokens),
  });
}

/**
 * The tool call in `response`. One cut off by the token budget inside a string (a long vote `reason`)
 * is closed and kept: the grammar guarantees everything before the cut was valid, and the arguments
 * are validated afterwards like any other call, so a cut name or id still fails.
 */
export async function parseCutToolCall(
  response: LlamaCompletionResponse,
  names: readonly string[],
): Promise<ReturnType<typeof parseToolCall>> {
  const parsed = parseToolCall(response.response, names);
  if (typeof parsed !== 'string' || response.metadata.stopReason !== 'maxTokens') return parsed;
  const repaired = await parsePartialJson(response.response);
  if (repaired.state !== 'repaired-parse') return parsed;
  return parseToolCall(JSON.stringify(repaired.value), names);
}

/**
 * Grammar-constrained JSON: near the end of the output budget, nudge the model to close what it has
 * open, so a long string still ends as valid JSON instead of being cut off.
 */
function closingBias(run: Run, generated: () => number): () => TokenBias {
  const { model } = run.session;
  const closing = closingTokenBias(model);
  const neutral = new TokenBias(model.tokenizer);
  const closeAt = run.budget - Math.min(CLOSING_RESERVE, Math.floor(run.budget / 4));
  return () => (generated() >= closeAt ? closing : neutral);
}

function finishReason(
  response: LlamaCompletionResponse | undefined,
  unified: LanguageModelV3FinishReason['unified'],
): LanguageModelV3FinishReason {
  return { unified, raw: response?.metadata.stopReason };
}

function usage(prompt: TokenizedPrompt, outputTokens: number): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: prompt.count,
      noCache: prompt.count - prompt.cached,
      cacheRead: prompt.cached,
      cacheWrite: undefined,
    },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

function generationError(error: unknown): unknown {
  if (error instanceof ProviderError) return error;
  const message = error instanceof Error ? error.message || error.name : String(error);
  return new ProviderError(PROVIDER, `${PROVIDER}: generation failed: ${message}`, {
    cause: error,
    retryable: false,
  });
}
