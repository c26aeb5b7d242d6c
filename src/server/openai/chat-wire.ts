import { z } from 'zod';
import type { ChatMessage, ChatRunPart } from '../../app/index.js';
import { requestMedia, RequestMediaError, type RequestFile } from '../../app/request-media.js';
import type { TokenUsage } from '../../types/usage.js';

/**
 * OpenAI's Chat Completions wire format, as far as `massgen serve` speaks it: the request checked at
 * the boundary, and the bodies and chunks it answers with. Sampling options (`temperature`, …) are
 * accepted and ignored: each agent's model settings come from the config.
 */

const TextPartSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const PartSchema = z.looseObject({ type: z.string() });
/** `{type: "image_url", image_url: {url, detail?}}`: a `data:` URL (remote URLs are refused). */
const ImagePartSchema = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.string().nullish() }),
});
/** `{type: "input_audio", input_audio: {data, format}}`: base64 audio. */
const AudioPartSchema = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string().min(1), format: z.string().min(1) }),
});
/** `{type: "file", file: {file_data, filename}}`: a base64 file (or a `data:` URL); `file_id` is not served. */
const FilePartSchema = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().min(1).nullish(),
    filename: z.string().nullish(),
    file_id: z.string().nullish(),
  }),
});

const MessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(PartSchema), z.null()]).optional(),
});

/** The body of `POST /v1/chat/completions`. */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(MessageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  /** OpenAI's "n": only one choice exists, the team's answer. */
  n: z.literal(1).nullish(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** An error the client caused or the server met, in OpenAI's error-body format. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'WireError';
  }

  body() {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export const badRequest = (message: string, param: string | null = null) =>
  new WireError(400, message, 'invalid_request_error', 'invalid_request', param);

/**
 * Headers of every answer while the server stops: the connection is not kept alive, and OpenAI's
 * clients (which retry a 5xx on their own) report the error at once instead of retrying a server that
 * is going away.
 */
export const STOPPING_HEADERS: Readonly<Record<string, string>> = {
  Connection: 'close',
  'x-should-retry': 'false',
};

/** A request that arrives while the server stops: `503`, nothing is run. */
export const shuttingDown = () =>
  new WireError(
    503,
    'massgen serve is shutting down and takes no new requests: send it again once the server is back',
    'server_error',
    'shutting_down',
    null,
    { ...STOPPING_HEADERS },
  );

/** A run (or a request waiting for one) that the server's shutdown cancelled: `503`, code `cancelled`. */
export const cancelledByShutdown = () =>
  new WireError(
    503,
    'the run was cancelled: massgen serve is shutting down',
    'server_error',
    'cancelled',
    null,
    { ...STOPPING_HEADERS },
  );

/** The conversation's text is bounded on its own: the body's larger bound leaves room for media. */
const MAX_TEXT_CHARS = 8 * 1024 * 1024;

/** The bytes of strict base64, or null. */
function base64Bytes(text: string): Uint8Array | null {
  const clean = text.replace(/\s+/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return null;
  return new Uint8Array(Buffer.from(clean, 'base64'));
}

/** The bytes of a `data:…;base64,` URL, or null when it is not one. */
function dataUrlBytes(url: string): Uint8Array | null {
  const match = /^data:[^,;]*(?:;[^,;]*)*;base64,(.*)$/is.exec(url);
  return match ? base64Bytes(match[1] ?? '') : null;
}

/** One media content part as a file for {@link requestMedia}, or a 400 naming the part. */
function mediaFile(part: z.infer<typeof PartSchema>, where: string, n: number): RequestFile {
  const bad = (message: string) => badRequest(`${where}: ${message}`, where);
  if (part.type === 'image_url') {
    const parsed = ImagePartSchema.safeParse(part);
    if (!parsed.success) throw bad('an image_url part needs "image_url": {"url": "data:image/png;base64,…"}');
    const url = parsed.data.image_url.url;
    if (/^https?:/i.test(url))
      throw bad(
        'massgen serve does not fetch image URLs (a server that fetches any address it is sent can be used to reach private networks): send the image inline as a data: URL, e.g. "data:image/png;base64,…"',
      );
    const data = dataUrlBytes(url);
    if (!data) throw bad('the image_url is not a base64 data: URL ("data:image/png;base64,…")');
    return { name: `image-${n}`, data, where };
  }
  if (part.type === 'input_audio') {
    const parsed = AudioPartSchema.safeParse(part);
    if (!parsed.success)
      throw bad('an input_audio part needs "input_audio": {"data": "<base64>", "format": "wav" | "mp3"}');
    const data = base64Bytes(parsed.data.input_audio.data);
    if (!data) throw bad('"input_audio.data" is not base64');
    const format = parsed.data.input_audio.format.replace(/[^a-z0-9]/gi, '').slice(0, 10);
    return { name: `audio-${n}.${format || 'audio'}`, data, where };
  }
  if (part.type === 'file') {
    const parsed = FilePartSchema.safeParse(part);
    if (!parsed.success) throw bad('a file part needs "file": {"file_data": "<base64>", "filename": "…"}');
    const { file_data: fileData, filename, file_id: fileId } = parsed.data.file;
    if (!fileData)
      throw bad(
        fileId
          ? 'massgen serve has no file store, so "file_id" cannot be used: send the file inline as "file_data" (base64)'
          : 'a file part needs "file_data" (base64, or a data: URL)',
      );
    const data = fileData.startsWith('data:') ? dataUrlBytes(fileData) : base64Bytes(fileData);
    if (!data) throw bad('"file.file_data" is not base64 (or a base64 data: URL)');
    return { name: filename || `file-${n}`, data, where };
  }
  throw bad(
    `the part type "${part.type}" is not supported: send "text", "image_url", "input_audio" or "file" parts`,
  );
}

/**
 * The request's messages: text parts joined, and a user message's media parts (`image_url` as a
 * `data:` URL, `input_audio`, `file` with `file_data`) checked and sniffed as attachments.
 * @throws {WireError} 400 naming the first part that cannot be used; 413 for media over a size limit.
 */
export async function messagesOf(request: ChatCompletionRequest): Promise<ChatMessage[]> {
  const files: RequestFile[] = [];
  const owners: number[] = [];
  const messages = request.messages.map((message, i): ChatMessage => {
    const role = message.role === 'function' ? 'tool' : message.role;
    const content = message.content ?? '';
    if (typeof content === 'string') return { role, content };
    const texts: string[] = [];
    content.forEach((part, j) => {
      const text = TextPartSchema.safeParse(part);
      if (text.success) return void texts.push(text.data.text);
      const where = `messages[${i}].content[${j}]`;
      if (role !== 'user')
        throw badRequest(`${where}: only user messages may carry media, not "${role}" ones`, where);
      files.push(mediaFile(part, where, files.length + 1));
      owners.push(i);
    });
    return { role, content: texts.join('\n') };
  });
  const text = messages.reduce((sum, m) => sum + m.content.length, 0);
  if (text > MAX_TEXT_CHARS)
    throw new WireError(
      413,
      `the messages' text is longer than ${MAX_TEXT_CHARS >> 20} Mi characters: send a shorter conversation`,
      'invalid_request_error',
      'too_large',
      'messages',
    );
  if (files.length === 0) return messages;
  let parts;
  try {
    parts = await requestMedia(files);
  } catch (error) {
    if (!(error instanceof RequestMediaError)) throw error;
    const status = error.tooLarge ? 413 : 400;
    throw new WireError(
      status,
      error.message,
      'invalid_request_error',
      error.tooLarge ? 'too_large' : 'invalid_media',
      'messages',
    );
  }
  return messages.map((message, i) => {
    const media = parts.filter((_, k) => owners[k] === i);
    return media.length > 0 ? { ...message, media } : message;
  });
}

/** OpenAI's usage object for the summed usage of every agent. */
export function wireUsage(usage: TokenUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** What every body and chunk of one completion shares. */
export interface CompletionHead {
  id: string;
  created: number;
  model: string;
}

/** A streamed chunk: one delta, or the finish reason, or (with `choices: []`) the usage. */
export function chunk(
  head: CompletionHead,
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string },
  finishReason: 'stop' | null = null,
) {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function usageChunk(head: CompletionHead, usage: TokenUsage) {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [],
    usage: wireUsage(usage),
  };
}

/** The delta a part of the run becomes: the trace as `reasoning_content`, the answer as `content`. */
export const deltaOf = (part: ChatRunPart) =>
  part.type === 'text' ? { content: part.text } : { reasoning_content: part.text };

/** The whole, non-streamed completion. */
export function completion(
  head: CompletionHead,
  answer: string,
  trace: string,
  usage: TokenUsage,
  run: { runId: string; winnerId: string | null; durationMs: number },
) {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer, reasoning_content: trace, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: wireUsage(usage),
    /** Not OpenAI's: which run this was, for the logs in `.massgen/massgen_logs`. */
    massgen: { run_id: run.runId, winner: run.winnerId, duration_ms: run.durationMs },
  };
}
