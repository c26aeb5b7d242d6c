import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3Warning,
} from '@ai-sdk/provider';
import { streamChatRun, totalUsage, type ChatMessage, type MassGenOptions } from '../app/index.js';
import { requestMedia, type RequestFile } from '../app/request-media.js';
import { MassGenError } from '../types/errors.js';
import type { RunResult } from '../types/run-result.js';
import type { TokenUsage } from '../types/usage.js';

/** What every call of one model runs with: the config and the run options, without the question. */
export type MassGenRunSettings = Omit<MassGenOptions, 'question' | 'history' | 'signal'>;

/** A run that ended without an answer (failed, timed out, cancelled): the reason, and the result. */
export class MassGenRunError extends MassGenError {
  constructor(readonly result: RunResult) {
    super(
      result.status === 'timeout' ? 'timeout' : result.status === 'cancelled' ? 'cancelled' : 'run_failed',
      `the massgen run ${result.status === 'completed' ? 'gave no answer' : result.status}: ${result.error?.message ?? 'no answer'}`,
    );
    this.name = 'MassGenRunError';
  }
}

/** A file part's bytes (the AI SDK hands inline data as bytes or base64; URLs it has downloaded already). */
function fileBytes(data: Uint8Array | string | URL, where: string): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'string') return new Uint8Array(Buffer.from(data, 'base64'));
  throw new MassGenError('usage_error', `${where}: massgen does not fetch file URLs (${data.protocol}…)`, {
    hint: 'pass the file’s bytes (a Uint8Array or base64) instead of a URL',
  });
}

/**
 * The prompt as chat messages: text parts joined, a user message's file and image parts as its media
 * (type sniffed from the bytes, size checked); other parts (tool calls, assistant files) reported as
 * warnings.
 * @throws {RequestMediaError} for a file that is too large or of a type no model takes.
 */
async function messagesOf(
  prompt: LanguageModelV3Prompt,
  warnings: SharedV3Warning[],
): Promise<ChatMessage[]> {
  const skipped = new Set<string>();
  const files: RequestFile[] = [];
  const owners: number[] = [];
  const messages = prompt.map((message, i): ChatMessage => {
    if (message.role === 'system') return { role: 'system', content: message.content };
    const texts: string[] = [];
    message.content.forEach((part, j) => {
      if (part.type === 'text') texts.push(part.text);
      else if (part.type === 'file' && message.role === 'user') {
        const where = `prompt[${i}].content[${j}]`;
        const name = part.filename ?? `${part.mediaType.split('/')[0] ?? 'file'}-${files.length + 1}`;
        files.push({ name, data: fileBytes(part.data, where), where });
        owners.push(i);
      } else if (part.type !== 'reasoning') skipped.add(part.type);
    });
    return { role: message.role, content: texts.join('\n') };
  });
  for (const type of skipped)
    warnings.push({
      type: 'unsupported',
      feature: `${type} parts`,
      details: 'only text and user files reach the agents',
    });
  if (files.length === 0) return messages;
  const parts = await requestMedia(files);
  return messages.map((message, i) => {
    const media = parts.filter((_, k) => owners[k] === i);
    return media.length > 0 ? { ...message, media } : message;
  });
}

/** Call options that mean nothing to a team (each agent's model settings come from the config). */
function ignoredOptions(options: LanguageModelV3CallOptions): SharedV3Warning[] {
  const warnings: SharedV3Warning[] = [];
  const settings = ['temperature', 'topP', 'topK', 'maxOutputTokens', 'seed', 'stopSequences'] as const;
  for (const name of settings)
    if (options[name] !== undefined)
      warnings.push({ type: 'unsupported', feature: name, details: "each agent's config decides it" });
  if (options.tools?.length)
    warnings.push({
      type: 'unsupported',
      feature: 'tools',
      details: 'the agents use the tools their config gives them; the caller’s tools are not offered',
    });
  if (options.responseFormat?.type === 'json')
    warnings.push({ type: 'unsupported', feature: 'responseFormat', details: 'ask for JSON in the prompt' });
  return warnings;
}

function usageOf(usage: TokenUsage): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: usage.inputTokens - usage.cachedInputTokens,
      cacheRead: usage.cachedInputTokens,
      cacheWrite: undefined,
    },
    outputTokens: {
      total: usage.outputTokens,
      text: usage.outputTokens - usage.reasoningTokens,
      reasoning: usage.reasoningTokens,
    },
  };
}

const metadataOf = (result: RunResult) => ({
  massgen: {
    runId: result.runId,
    status: result.status,
    winnerId: result.winnerId,
    durationMs: result.durationMs,
    logDir: result.logDir,
  },
});

/**
 * A team of agents as one AI SDK language model: each call is a massgen run on the prompt (the last user
 * message is the question, earlier turns are history). The coordination trace streams as reasoning and
 * the final answer as text; usage is summed over every agent; `providerMetadata.massgen` names the run.
 */
export class MassGenLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3';
  readonly provider = 'massgen';
  readonly supportedUrls: Record<string, RegExp[]> = {};

  constructor(
    readonly modelId: string,
    private readonly settings: MassGenRunSettings,
  ) {}

  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream } = await this.doStream(options);
    const content: LanguageModelV3Content[] = [];
    let warnings: SharedV3Warning[] = [];
    let reasoning = '';
    let text = '';
    let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value;
      if (part.type === 'stream-start') warnings = part.warnings;
      else if (part.type === 'reasoning-delta') reasoning += part.delta;
      else if (part.type === 'text-delta') text += part.delta;
      else if (part.type === 'error') throw part.error;
      else if (part.type === 'finish') finish = part;
    }
    if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
    content.push({ type: 'text', text });
    if (!finish) throw new MassGenError('run_failed', 'the massgen run ended without finishing');
    return {
      content,
      finishReason: finish.finishReason,
      usage: finish.usage,
      warnings,
      ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
    };
  }

  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const warnings = ignoredOptions(options);
    const messages = await messagesOf(options.prompt, warnings);
    const parts = streamChatRun(messages, {
      ...this.settings,
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    });
    // The config is checked and the agents are built before the stream is handed out, so a bad config
    // rejects here, like a provider that refuses a request.
    const first = await parts.next();
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      async start(controller) {
        const emit = (part: LanguageModelV3StreamPart) => controller.enqueue(part);
        emit({ type: 'stream-start', warnings });
        let open: 'reasoning' | 'text' | null = null;
        const close = () => {
          if (open) emit({ type: `${open}-end`, id: open });
          open = null;
        };
        try {
          let next = first;
          for (; !next.done; next = await parts.next()) {
            const kind = next.value.type;
            if (open !== kind) {
              close();
              emit({ type: `${kind}-start`, id: kind });
              open = kind;
            }
            emit({ type: `${kind}-delta`, id: kind, delta: next.value.text });
          }
          close();
          const result = next.value;
          if (result.status !== 'completed' || result.finalAnswer === null)
            emit({ type: 'error', error: new MassGenRunError(result) });
          emit({
            type: 'finish',
            finishReason:
              result.status === 'completed'
                ? { unified: 'stop', raw: 'stop' }
                : { unified: 'error', raw: result.status },
            usage: usageOf(totalUsage(result.usage)),
            providerMetadata: metadataOf(result),
          });
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        // The caller stopped reading: cancel the run (its logs are still written).
        await parts.return(undefined as never);
      },
    });
    return { stream };
  }
}
