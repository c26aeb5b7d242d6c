import type { ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { untilAborted } from '../../util/abort.js';

/** Where parts come from: a web stream's reader, or a reader of its own (the lean Chat Completions one). */
export type PartReader<P> = Pick<ReadableStreamDefaultReader<P>, 'read' | 'cancel'>;

/**
 * Reads an AI SDK stream (a model's `doStream` parts, or the `ai` package's full stream) as massgen's
 * stream parts. `translate` maps one source part (null: nothing to show; it throws for error parts);
 * the loop around it — abort, the end at `finish`, a stream that stops before it — is the same for
 * both kinds of stream, so it lives here once.
 */
export async function* readStreamParts<P>(
  reader: PartReader<P>,
  signal: AbortSignal,
  type: string,
  translate: (part: P) => ModelStreamPart | null,
): AsyncGenerator<ModelStreamPart> {
  for (;;) {
    const next = await untilAborted(reader.read(), signal);
    if (next.done) break;
    const part = translate(next.value);
    if (part === null) continue;
    yield part;
    if (part.type === 'finish') return;
  }
  throw streamEndedEarly(type);
}

/** A text or reasoning delta, or nothing for an empty one. */
export function deltaPart(kind: 'text' | 'reasoning', text: string): ModelStreamPart | null {
  return text === '' ? null : { type: kind === 'text' ? 'text-delta' : 'reasoning-delta', text };
}

/**
 * A tool call: shown only when the provider (or the agent's own loop) runs it, else one for the
 * orchestrator to run. Invalid calls still carry their input (the raw string when it did not parse), so
 * the orchestrator answers them with a tool error and the model sees what it sent.
 */
export function toolCallPart(
  providerExecuted: boolean,
  callId: string,
  toolName: string,
  input: unknown,
): ModelStreamPart {
  return providerExecuted
    ? { type: 'provider-tool-call', callId, toolName, input }
    : { type: 'tool-call', call: { id: callId, name: toolName, arguments: input } };
}

/** A stream that stopped before its `finish` part: a truncated response, worth another attempt. */
export function streamEndedEarly(type: string): ProviderError {
  return new ProviderError(type, `${type}: the model stream ended without a finish event`, {
    retryable: true,
  });
}
