import type {
  AssistantModelMessage,
  FilePart,
  ImagePart,
  ModelMessage,
  TextPart,
  ToolModelMessage,
  UserModelMessage,
} from 'ai';
import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
} from '@ai-sdk/provider';
import type { MediaPart } from '../../types/media.js';
import type { ChatMessage, ToolCall } from '../../types/messages.js';
import type { MediaGate } from '../media-input.js';

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/** How media reaches the wire; every field is optional (all media sent, tool media after the results). */
export interface MediaConversion {
  /**
   * Why a part cannot go to this model (its kind, format or size), or null when it can. A part that
   * cannot becomes a one-line note in the text, so the model knows the file exists and the provider
   * never refuses the request for it.
   */
  gate?: MediaGate;
  /**
   * Tool results whose media the vendor takes inside the result itself (a vendor's own computer
   * tool). Other tool media goes in a user message right after the results, since most wire formats
   * cannot carry media in a tool result.
   */
  keepsMediaInResult?: (message: ToolMessage) => boolean;
}

/**
 * Translates our provider-neutral history into AI SDK messages.
 *
 * Assistant tool calls become `tool-call` parts whose `input` is our parsed `arguments` (or the raw string
 * the model sent when it did not parse, so the model later sees exactly what it produced); tool results
 * become `tool` messages with `text` or `error-text` output. A user message's media becomes `image` and
 * `file` parts after its text; see {@link MediaConversion} for tool media.
 */
export function toModelMessages(
  messages: readonly ChatMessage[],
  conversion: MediaConversion = {},
): ModelMessage[] {
  return withToolMedia(messages, conversion).map((message) => toModelMessage(message, conversion));
}

function toModelMessage(message: ChatMessage, conversion: MediaConversion): ModelMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return toUserModelMessage(message, conversion);
    case 'assistant':
      return toAssistantMessage(message);
    case 'tool':
      return toToolMessage(message, conversion);
  }
}

function toUserModelMessage(
  message: Extract<ChatMessage, { role: 'user' }>,
  conversion: MediaConversion,
): UserModelMessage {
  const { text, parts } = shownMedia(message.content, message.media, conversion.gate);
  if (parts.length === 0) return { role: 'user', content: text };
  const content: Array<TextPart | ImagePart | FilePart> = text === '' ? [] : [{ type: 'text', text }];
  for (const part of parts) {
    content.push(
      part.kind === 'image'
        ? { type: 'image', image: part.data, mediaType: part.mediaType }
        : { type: 'file', data: part.data, mediaType: part.mediaType, filename: part.name },
    );
  }
  return { role: 'user', content };
}

function toAssistantMessage(message: Extract<ChatMessage, { role: 'assistant' }>): AssistantModelMessage {
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: 'assistant', content: message.content };
  const parts: AssistantModelMessage['content'] = [];
  if (message.content !== '') parts.push({ type: 'text', text: message.content });
  for (const call of calls) parts.push(toolCallPart(call));
  return { role: 'assistant', content: parts };
}

function toToolMessage(message: ToolMessage, conversion: MediaConversion): ToolModelMessage {
  return { role: 'tool', content: [toolResultPart(message, conversion)] };
}

/** A tool call as both message forms carry it (the SDK's and the provider-level prompt's). */
function toolCallPart(call: ToolCall) {
  return {
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.name,
    // `input` must be a JSON value; a call without arguments means "no arguments".
    input: call.arguments === undefined ? {} : call.arguments,
  };
}

/**
 * A tool result as both message forms carry it: `text`, or `error-text` for a failed call, or — for a
 * result whose media stays inside it ({@link MediaConversion.keepsMediaInResult}) — `content` with the
 * text and the media as base64 parts.
 */
function toolResultPart(message: ToolMessage, conversion: MediaConversion) {
  const base = { type: 'tool-result' as const, toolCallId: message.toolCallId, toolName: message.toolName };
  if (message.isError === true)
    return { ...base, output: { type: 'error-text' as const, value: message.content } };
  if (keepsMedia(message, conversion)) {
    const { text, parts } = shownMedia(message.content, message.media, conversion.gate);
    return {
      ...base,
      output: {
        type: 'content' as const,
        value: [
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...parts.map((part) =>
            part.kind === 'image'
              ? { type: 'image-data' as const, data: base64Of(part.data), mediaType: part.mediaType }
              : {
                  type: 'file-data' as const,
                  data: base64Of(part.data),
                  mediaType: part.mediaType,
                  filename: part.name,
                },
          ),
        ],
      },
    };
  }
  return { ...base, output: { type: 'text' as const, value: message.content } };
}

const keepsMedia = (message: ToolMessage, conversion: MediaConversion): boolean =>
  (message.media?.length ?? 0) > 0 &&
  message.isError !== true &&
  conversion.keepsMediaInResult?.(message) === true;

/**
 * Our history as the provider-level prompt a model's `doStream` takes — what `streamText` would build
 * from {@link toModelMessages}' output, for the message shapes massgen produces (text, media, tool calls
 * with parsed arguments, text or error tool results). Empty text parts are left out, as the SDK does.
 * Media become `file` parts carrying their bytes and media type (images too: `streamText` turns an
 * `image` part into exactly such a part), named by `filename`.
 */
export function toLanguageModelPrompt(
  messages: readonly ChatMessage[],
  conversion: MediaConversion = {},
): LanguageModelV3Prompt {
  return withToolMedia(messages, conversion).map((message): LanguageModelV3Message => {
    switch (message.role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user': {
        const { text, parts } = shownMedia(message.content, message.media, conversion.gate);
        return { role: 'user', content: [...textParts(text), ...parts.map(filePart)] };
      }
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0)
          return { role: 'assistant', content: [{ type: 'text', text: message.content }] };
        return { role: 'assistant', content: [...textParts(message.content), ...calls.map(toolCallPart)] };
      }
      case 'tool':
        return { role: 'tool', content: [toolResultPart(message, conversion)] };
    }
  });
}

function textParts(text: string): LanguageModelV3TextPart[] {
  return text === '' ? [] : [{ type: 'text', text }];
}

function filePart(part: MediaPart): LanguageModelV3FilePart {
  return { type: 'file', data: part.data, mediaType: part.mediaType, filename: part.name };
}

/**
 * The history with each run of consecutive tool results followed by one user message carrying their
 * media ("Media returned by <tool> (<call id>): <names>" and the files), since most wire formats take
 * no media in a tool result and a user message between two results would split the step (OpenAI
 * refuses that). The tool messages themselves lose their media, so nothing is sent twice.
 */
function withToolMedia(messages: readonly ChatMessage[], conversion: MediaConversion): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: MediaPart[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    out.push({ role: 'user', content: lines.join('\n'), media: pending });
    pending = [];
    lines = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') {
      flush();
      out.push(message);
      continue;
    }
    const media = message.media ?? [];
    if (media.length === 0 || keepsMedia(message, conversion)) {
      out.push(message);
      continue;
    }
    const { media: _sent, ...withoutMedia } = message;
    out.push(withoutMedia);
    lines.push(
      `Media returned by ${message.toolName} (${message.toolCallId}): ${media.map((m) => m.name).join(', ')}`,
    );
    pending.push(...media);
  }
  flush();
  return out;
}

/**
 * The parts a message may carry to this model, and its text with one line per part that cannot go
 * (named, with the reason), so the model still learns the file exists.
 */
function shownMedia(
  content: string,
  media: readonly MediaPart[] | undefined,
  gate: MediaGate | undefined,
): { text: string; parts: MediaPart[] } {
  if (media === undefined || media.length === 0) return { text: content, parts: [] };
  const parts: MediaPart[] = [];
  const notes: string[] = [];
  for (const part of media) {
    const refusal = gate?.(part) ?? null;
    if (refusal === null) parts.push(part);
    else notes.push(`[${part.name} (${part.kind}, ${part.mediaType}) not shown: ${refusal}.]`);
  }
  const text = notes.length === 0 ? content : [content, ...notes].filter((s) => s !== '').join('\n');
  return { text, parts };
}

function base64Of(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}
