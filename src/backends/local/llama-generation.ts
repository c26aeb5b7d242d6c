import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FinishReason,
  LanguageModelV3FunctionTool,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider';
import type {
  LlamaCompletionGenerationOptions,
  LlamaCompletionResponse,
  LlamaGrammar,
  Token,
} from 'node-llama-cpp';
import { parsePartialJson } from 'ai';
import { TokenBias } from 'node-llama-cpp';
import { randomInt, randomUUID } from 'node:crypto';
import { ProviderError } from '../../types/errors.js';
import type { LocalModelSession } from './model-pool.js';
import type { RenderedPrompt } from './prompt.js';
import {
  closingTokenBias,
  jsonSchemaGrammar,
  parseToolCall,
  repairArguments,
  validateArguments,
} from './tool-grammar.js';

// One generation of the in-process model (`LlamaLanguageModel`): free text, or one grammar-constrained
// tool call, with the prompt's tokens and usage as the AI SDK wants them.

/** Sampling temperature for free text when the call sets none. */
export const DEFAULT_TEXT_TEMPERATURE = 0.7;
/** Sampling temperature for tool-call JSON when the call sets none: small models stay on track. */
export const DEFAULT_TOOL_TEMPERATURE = 0.2;
/** Tokens before the end of the budget at which tool-call JSON is nudged to close (at most). */
const CLOSING_RESERVE = 64;

const PROVIDER = 'local';

export interface TokenizedPrompt {
  /** Tokens to pass to `LlamaCompletion` (it prepends the BOS token itself when the model wants one). */
  tokens: Token[];
  /** Tokens the context will hold, BOS included. */
  count: number;
  /** Leading tokens already in the sequence from the previous call (llama.cpp reuses them). */
  cached: number;
}

export interface Run {
  session: LocalModelSession;
  options: LanguageModelV3CallOptions;
  prompt: TokenizedPrompt;
  /** Output tokens allowed: `maxOutputTokens`, capped by the room left in the context. */
  budget: number;
  signal: AbortSignal | undefined;
}

export type Enqueue = (part: LanguageModelV3StreamPart) => void;

export function tokenizePrompt(session: LocalModelSession, rendered: RenderedPrompt): TokenizedPrompt {
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

export async function jsonGrammar(
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

export async function generateText(
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

export async function generateToolCall(
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

export function finishReason(
  response: LlamaCompletionResponse | undefined,
  unified: LanguageModelV3FinishReason['unified'],
): LanguageModelV3FinishReason {
  return { unified, raw: response?.metadata.stopReason };
}

export function usage(prompt: TokenizedPrompt, outputTokens: number): LanguageModelV3Usage {
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

export function generationError(error: unknown): unknown {
  if (error instanceof ProviderError) return error;
  const message = error instanceof Error ? error.message || error.name : String(error);
  return new ProviderError(PROVIDER, `${PROVIDER}: generation failed: ${message}`, {
    cause: error,
    retryable: false,
  });
}
