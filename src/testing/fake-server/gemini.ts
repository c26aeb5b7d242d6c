import type { ServerResponse } from 'node:http';
import type { FakeRequestView, WireDialect } from './dialect.js';
import { geminiMedia } from './media-parts.js';
import { isVoteTool, votableIdsOf } from './openai-chat.js';
import { chunksOf, estimateUsage, nextResponseIndex, SseWriter, type ScriptedReply } from './script.js';

/**
 * Gemini-only parts of a script (Google Search grounding, code execution), which the vendor-neutral
 * script has no words for. Attach them with {@link withGemini}; other dialects ignore them.
 */
export interface FakeGeminiExtras {
  /** Google Search grounding, sent as `groundingMetadata` on the final chunk, as Gemini does. */
  search?: { queries: string[]; sources: Array<{ url: string; title?: string }> };
  /** Code the model ran: `executableCode` then `codeExecutionResult` parts, after reasoning and before text. */
  codeExecutions?: Array<{ code: string; language?: string; outcome?: string; output?: string }>;
}

/** `reply` with Gemini-only extras attached (see {@link FakeGeminiExtras}). */
export function withGemini<R extends ScriptedReply>(reply: R, extras: FakeGeminiExtras): R {
  return { ...reply, gemini: extras };
}

/** The parts of a Gemini `generateContent` request body tests usually inspect; everything else is kept too. */
export interface FakeGeminiRequestBody {
  contents?: Array<{ role?: string; parts?: GeminiPart[] }>;
  systemInstruction?: { parts?: Array<{ text?: string }> };
  tools?: Array<{
    functionDeclarations?: Array<{
      name: string;
      description?: string;
      parameters?: unknown;
      parametersJsonSchema?: unknown;
    }>;
    googleSearch?: unknown;
    codeExecution?: unknown;
    [key: string]: unknown;
  }>;
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: {
    temperature?: number;
    maxOutputTokens?: number;
    thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean; thinkingLevel?: string };
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** One `Part` of Gemini's `Content`, as far as the fake reads or writes it. */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args: unknown };
  functionResponse?: { id?: string; name: string; response: unknown };
  executableCode?: { language: string; code: string };
  codeExecutionResult?: { outcome: string; output: string };
}

/** Google's canonical status names for the HTTP statuses tests script. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Google's error body: `{"error":{"code","message","status"}}`. */
export function geminiErrorBody(
  status: number,
  message: string,
): { error: { code: number; message: string; status: string } } {
  const name = STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
  return { error: { code: status, message, status: name } };
}

/** `…/models/{model}:streamGenerateContent` or `:generateContent`; the model is the last path segment. */
const ROUTE = /\/([^/]+):(streamGenerateContent|generateContent)$/;

function extrasOf(reply: ScriptedReply): FakeGeminiExtras {
  return (reply as { gemini?: FakeGeminiExtras }).gemini ?? {};
}

const textOfPart = (part: GeminiPart): string => {
  if (part.text !== undefined) return part.text;
  if (part.functionResponse === undefined) return '';
  const response = part.functionResponse.response as { content?: unknown } | undefined;
  return typeof response?.content === 'string' ? response.content : JSON.stringify(response ?? null);
};

/**
 * Function calls as Gemini sends them: `args` whole (never fragmented) as a JSON object. A scripted string
 * that is not JSON is sent verbatim (Gemini cannot do that; it lets tests reach invalid-arguments paths).
 * `id` only when scripted: Gemini 2.x sends none and the SDK makes one up.
 */
function functionCallParts(reply: ScriptedReply): GeminiPart[] {
  return ('toolCalls' in reply ? reply.toolCalls : []).map((call) => {
    let args: unknown = call.arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        // Kept as the raw string.
      }
    }
    return { functionCall: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args } };
  });
}

function codeExecutionParts(extras: FakeGeminiExtras): GeminiPart[] {
  return (extras.codeExecutions ?? []).flatMap((run) => [
    { executableCode: { language: run.language ?? 'PYTHON', code: run.code } },
    { codeExecutionResult: { outcome: run.outcome ?? 'OUTCOME_OK', output: run.output ?? '' } },
  ]);
}

function groundingMetadataOf(extras: FakeGeminiExtras) {
  const search = extras.search;
  if (search === undefined) return undefined;
  return {
    webSearchQueries: search.queries,
    searchEntryPoint: { renderedContent: '<div class="fake-search-entry-point"></div>' },
    groundingChunks: search.sources.map((s) => ({
      web: { uri: s.url, title: s.title ?? new URL(s.url).host },
    })),
    groundingSupports: [],
  };
}

/**
 * Gemini's `usageMetadata`. The script's `completionTokens` counts reasoning too (as OpenAI's does), while
 * Gemini reports thoughts apart from `candidatesTokenCount`; splitting them keeps every dialect's output
 * total equal for one script. `promptTokenCount` includes the cached tokens, as Gemini's does.
 */
function usageOf(body: FakeGeminiRequestBody, reply: ScriptedReply) {
  const u = estimateUsage(JSON.stringify(body.contents ?? []).length, reply);
  const thoughts = Math.min(u.reasoningTokens, u.completionTokens);
  const candidates = u.completionTokens - thoughts;
  return {
    promptTokenCount: u.promptTokens,
    candidatesTokenCount: candidates,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(u.cachedTokens > 0 ? { cachedContentTokenCount: u.cachedTokens } : {}),
    totalTokenCount: u.promptTokens + candidates + thoughts,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.promptTokens }],
  };
}

function finishReasonOf(reply: ScriptedReply): string {
  // Gemini ends a function-call turn with STOP too; clients tell tool calls by the parts.
  return 'finishReason' in reply && reply.finishReason !== undefined ? reply.finishReason : 'STOP';
}

/** `modelVersion` echoes the model from the request path when known (dialects get no path for JSON replies). */
function meta(path: string | undefined) {
  const index = nextResponseIndex();
  const model = path === undefined ? undefined : ROUTE.exec(path)?.[1];
  return { modelVersion: model ?? 'fake-model', responseId: `fake-gemini-${index}` };
}

/**
 * Gemini API: `POST …/models/{model}:streamGenerateContent?alt=sse` (SSE of `GenerateContentResponse`
 * chunks) and `:generateContent` (one JSON `GenerateContentResponse`).
 *
 * Each streamed chunk is `{"candidates":[{"content":{"role":"model","parts":[…]},"index":0}],
 * "usageMetadata":{…},"modelVersion","responseId"}`: thought parts `{text, thought: true}` first, then code
 * execution parts, text parts, and all function calls together in one chunk with whole `args`. The last
 * chunk also carries `finishReason`, the full `usageMetadata` and any `groundingMetadata`.
 */
export const geminiDialect: WireDialect = {
  name: 'gemini',
  matches: (method, path) => method === 'POST' && ROUTE.test(path),

  view(raw, path): FakeRequestView {
    const body = raw as FakeGeminiRequestBody;
    const declarations = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    const vote = declarations.find((d) => isVoteTool(String(d.name)));
    return {
      dialect: 'gemini',
      model: ROUTE.exec(path)?.[1] ?? '',
      system: (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n'),
      toolNames: declarations.map((d) => d.name),
      votableIds: votableIdsOf(vote?.parameters ?? vote?.parametersJsonSchema),
      text: (body.contents ?? [])
        .flatMap((c) => c.parts ?? [])
        .map(textOfPart)
        .filter((t) => t !== '')
        .join('\n'),
      media: geminiMedia(body.contents ?? []),
      stream: ROUTE.exec(path)?.[2] === 'streamGenerateContent',
    };
  },

  async writeStream(res: ServerResponse, raw, reply) {
    const body = raw as FakeGeminiRequestBody;
    const m = meta(res.req.url?.split('?')[0]);
    const extras = extrasOf(reply);
    const { reasoning, text } = chunksOf(reply);
    const chunks: GeminiPart[][] = [
      ...reasoning.map((piece) => [{ text: piece, thought: true }]),
      ...codeExecutionParts(extras).map((part) => [part]),
      ...text.map((piece) => [{ text: piece }]),
    ];
    const calls = functionCallParts(reply);
    if (calls.length > 0) chunks.push(calls);
    if (chunks.length === 0) chunks.push([{ text: '' }]);
    const usage = usageOf(body, reply);
    const sse = new SseWriter(res, reply);
    for (const [i, parts] of chunks.entries()) {
      const last = i === chunks.length - 1;
      const grounding = last ? groundingMetadataOf(extras) : undefined;
      const chunk = {
        candidates: [
          {
            content: { role: 'model', parts },
            ...(last ? { finishReason: finishReasonOf(reply) } : {}),
            ...(grounding === undefined ? {} : { groundingMetadata: grounding }),
            index: 0,
          },
        ],
        // Intermediate chunks report the prompt only; the last one has the full counts.
        usageMetadata: last
          ? usage
          : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
        ...m,
      };
      if (!(await sse.sendContent(chunk))) return;
    }
    sse.end();
  },

  json(raw, reply) {
    const body = raw as FakeGeminiRequestBody;
    const extras = extrasOf(reply);
    const parts: GeminiPart[] = [
      ...(reply.reasoning === undefined ? [] : [{ text: reply.reasoning, thought: true }]),
      ...codeExecutionParts(extras),
      ...(reply.text === undefined || reply.text === '' ? [] : [{ text: reply.text }]),
      ...functionCallParts(reply),
    ];
    const grounding = groundingMetadataOf(extras);
    return {
      candidates: [
        {
          content: { role: 'model', parts },
          finishReason: finishReasonOf(reply),
          ...(grounding === undefined ? {} : { groundingMetadata: grounding }),
          index: 0,
        },
      ],
      usageMetadata: usageOf(body, reply),
      ...meta(undefined),
    };
  },

  errorBody: geminiErrorBody,
};
