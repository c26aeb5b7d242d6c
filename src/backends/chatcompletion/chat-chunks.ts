/**
 * The streamed chunks of a Chat Completions reply, checked by hand against the shape the AI SDK's
 * `@ai-sdk/openai-compatible` accepts (its chunk schema, or its error schema): the same chunks pass and
 * fail, without building a validated copy of every chunk. Fields massgen does not read are checked
 * only as far as that schema checks them.
 */

/** A tool call's piece as streamed: its first piece names it, later ones add to its arguments. */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function: { name?: string | null; arguments?: string | null };
}

/** Content as some servers stream it: parts, of which text and (Mistral's) thinking are read. */
export type ContentParts = readonly { type: string; text?: unknown; thinking?: unknown }[];

export interface ChatDelta {
  content?: string | ContentParts | null;
  reasoning_content?: string | null;
  /** What some servers of gpt-oss send instead of `reasoning_content`. */
  reasoning?: string | null;
  tool_calls?: readonly ToolCallDelta[] | null;
}

export interface ChatUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

export interface ChatChunk {
  choices: readonly { delta?: ChatDelta | null; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
}

/** What a chunk is: a reply chunk, an error the server reported in the stream, or not a chunk at all. */
export type CheckedChunk =
  | { kind: 'chunk'; chunk: ChatChunk }
  | { kind: 'error'; error: unknown }
  | { kind: 'invalid'; problem: string };

type Check = (value: unknown) => string | null;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nullish = (value: unknown): value is null | undefined => value === null || value === undefined;

const optional =
  (type: 'string' | 'number'): Check =>
  (value) =>
    nullish(value) || typeof value === type ? null : `expected a ${type}`;
const optionalString = optional('string');
const optionalNumber = optional('number');

/** An object with these fields (others are left alone); `nullable` also takes null and a missing value. */
function object(fields: Record<string, Check>, nullable = false): Check {
  const entries = Object.entries(fields);
  return (value) => {
    if (nullable && nullish(value)) return null;
    if (!isRecord(value)) return 'expected an object';
    for (const [key, check] of entries) {
      const problem = check(value[key]);
      if (problem !== null) return `${key}: ${problem}`;
    }
    return null;
  };
}

const array =
  (item: Check, nullable = false): Check =>
  (value) => {
    if (nullable && nullish(value)) return null;
    if (!Array.isArray(value)) return 'expected an array';
    for (let i = 0; i < value.length; i++) {
      const problem = item(value[i]);
      if (problem !== null) return `${i}: ${problem}`;
    }
    return null;
  };

const contentParts = array(object({ type: (t) => (typeof t === 'string' ? null : 'expected a string') }));
const content: Check = (value) =>
  nullish(value) || typeof value === 'string'
    ? null
    : Array.isArray(value)
      ? contentParts(value)
      : 'expected a string or an array';

const toolCall = object({
  index: optionalNumber,
  id: optionalString,
  function: object({ name: optionalString, arguments: optionalString }),
  extra_content: object({ google: object({ thought_signature: optionalString }, true) }, true),
});

const delta = object(
  {
    role: (role) => (nullish(role) || role === 'assistant' || role === '' ? null : 'expected "assistant"'),
    content,
    reasoning_content: optionalString,
    reasoning: optionalString,
    tool_calls: array(toolCall, true),
  },
  true,
);

const usage = object(
  {
    prompt_tokens: optionalNumber,
    completion_tokens: optionalNumber,
    total_tokens: optionalNumber,
    prompt_tokens_details: object({ cached_tokens: optionalNumber }, true),
    completion_tokens_details: object(
      {
        reasoning_tokens: optionalNumber,
        accepted_prediction_tokens: optionalNumber,
        rejected_prediction_tokens: optionalNumber,
      },
      true,
    ),
  },
  true,
);

const chunk = object({
  id: optionalString,
  created: optionalNumber,
  model: optionalString,
  choices: array(object({ delta, finish_reason: optionalString })),
  usage,
});

const streamError = object({
  error: object({
    message: (m) => (typeof m === 'string' ? null : 'expected a string'),
    type: optionalString,
    code: (c) => (nullish(c) || typeof c === 'string' || typeof c === 'number' ? null : 'expected a string'),
  }),
});

/** Checks one parsed chunk; an `error` field makes it the server's error, as the AI SDK reads it. */
export function checkChunk(value: unknown): CheckedChunk {
  const asChunk = chunk(value);
  if (asChunk !== null && streamError(value) !== null) return { kind: 'invalid', problem: asChunk };
  const record = value as Record<string, unknown>;
  if ('error' in record) return { kind: 'error', error: record.error };
  return { kind: 'chunk', chunk: value as ChatChunk };
}
