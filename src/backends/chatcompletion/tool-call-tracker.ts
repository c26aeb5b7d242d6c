import { InvalidResponseDataError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ToolCallDelta } from './chat-chunks.js';

/** One call being streamed. */
interface TrackedCall {
  id: string;
  index: number | undefined;
  /** Order of first sight, for calls that share an index. */
  sequence: number;
  name: string;
  arguments: string;
  finished: boolean;
}

const nonBlank = (value: string | null | undefined): string | undefined =>
  value != null && value.trim().length > 0 ? value : undefined;

/** Arguments that open with `{` or `[`: a piece that starts a new call rather than continuing one. */
const startsStructured = (value: string | null | undefined): boolean => {
  const first = value?.trimStart()[0];
  return first === '{' || first === '[';
};

/** Whether `text` holds one whole JSON object or array (brackets balanced outside strings). */
function isCompleteStructuredValue(text: string): boolean {
  const stack: string[] = [];
  let started = false;
  let inString = false;
  let escaped = false;
  for (const character of text) {
    if (!started) {
      if (/\s/.test(character)) continue;
      if (character !== '{' && character !== '[') return false;
      started = true;
      stack.push(character);
      continue;
    }
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{' || character === '[') stack.push(character);
    else if (character === '}' || character === ']') {
      if (stack.at(-1) !== (character === '}' ? '{' : '[')) return false;
      stack.pop();
      if (stack.length === 0) return true;
    }
  }
  return false;
}

type Resolution = TrackedCall | 'new' | 'ambiguous';

/**
 * Assembles the tool calls of a streamed Chat Completions reply the way `@ai-sdk/openai-compatible`
 * does (its pieces-before-the-name buffering, then provider-utils' `StreamingToolCallTracker`): calls
 * are matched by index, then id, then name; a piece with a name whose arguments open a new object
 * starts a new call on an index whose call is complete; ids the server repeats or leaves out are made
 * unique. Emits `tool-input-start` when a call is named and every `tool-call` at the end, in index order.
 */
export class ToolCallTracker {
  private readonly calls: TrackedCall[] = [];
  private readonly byId = new Map<string, Set<TrackedCall>>();
  private readonly byIndex = new Map<number, Set<TrackedCall>>();
  private readonly usedIds = new Set<string>();
  private readonly nextSuffix = new Map<string, number>();
  /** Pieces of an indexed call that came before its name. */
  private readonly pending = new Map<number, { id: string | null; arguments: string }>();
  private readonly named = new Set<number>();

  constructor(
    private readonly emit: (part: LanguageModelV3StreamPart) => void,
    private readonly newId: () => string,
  ) {}

  /** Takes one piece. Throws `InvalidResponseDataError` for a call that starts without a name. */
  add(delta: ToolCallDelta): void {
    const index = delta.index;
    if (index == null || this.named.has(index)) {
      this.process(delta);
      return;
    }
    let pending = this.pending.get(index);
    if (pending === undefined) {
      pending = { id: delta.id ?? null, arguments: '' };
      this.pending.set(index, pending);
    } else if (pending.id == null && delta.id != null) {
      pending.id = delta.id;
    }
    if (delta.function.arguments != null) pending.arguments += delta.function.arguments;
    const name = delta.function.name;
    if (name != null) {
      this.process({ index, id: pending.id, function: { name, arguments: pending.arguments } });
      this.pending.delete(index);
      this.named.add(index);
    }
  }

  /** At the end of the reply: every call not finished yet is, in index order. */
  end(): void {
    for (const [index, pending] of this.pending)
      this.process({ index, id: pending.id, function: { arguments: pending.arguments } });
    this.pending.clear();
    const ordered = this.calls.every((c) => c.index !== undefined)
      ? [...this.calls].sort((a, b) => (a.index ?? 0) - (b.index ?? 0) || a.sequence - b.sequence)
      : this.calls;
    for (const call of ordered) {
      if (call.finished) continue;
      this.emit({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
      call.finished = true;
    }
  }

  private process(delta: ToolCallDelta): void {
    const wireName = delta.function.name;
    const wireId = nonBlank(delta.id);
    const name = nonBlank(wireName);
    const index = delta.index ?? undefined;
    const resolution = this.resolve(
      wireId,
      index,
      name,
      name !== undefined && startsStructured(delta.function.arguments),
    );
    if (resolution === 'ambiguous') return;
    let call: TrackedCall;
    if (resolution === 'new') {
      if (typeof wireName === 'string' && name === undefined) return;
      call = this.start(delta, wireId, index, name);
    } else {
      call = resolution;
      if (wireId !== undefined) this.associate(this.byId, wireId, call);
      if (!call.finished && delta.function.arguments != null) call.arguments += delta.function.arguments;
    }
    if (index !== undefined) this.associate(this.byIndex, index, call);
  }

  private resolve(
    wireId: string | undefined,
    index: number | undefined,
    name: string | undefined,
    explicitStart: boolean,
  ): Resolution {
    const indexed = index === undefined ? undefined : this.byIndex.get(index);
    const sameName = [...(indexed ?? [])].filter((c) => name === undefined || c.name === name);
    if (wireId !== undefined) {
      const withId = this.byId.get(wireId);
      if (withId !== undefined) {
        if (index !== undefined) {
          const found = this.match(
            sameName.filter((c) => withId.has(c)),
            explicitStart,
          );
          if (found !== 'new') return found;
          if (name !== undefined) return 'new';
          if (indexed !== undefined) return 'ambiguous';
          return this.match([...withId], false);
        }
        if (name !== undefined)
          return this.match(
            [...withId].filter((c) => c.name === name),
            explicitStart,
          );
        return this.match([...withId], false);
      }
      if (sameName.length > 0) return explicitStart ? 'new' : this.match(sameName, false);
      return 'new';
    }
    if (indexed !== undefined) return this.match(sameName, explicitStart);
    if (name !== undefined) return 'new';
    const unfinished = this.calls.filter((c) => !c.finished);
    if (unfinished.length === 1) return unfinished[0] as TrackedCall;
    return unfinished.length > 1 ? 'ambiguous' : 'new';
  }

  private match(calls: TrackedCall[], explicitStart: boolean): Resolution {
    if (calls.length === 0) return 'new';
    if (!explicitStart) return calls.length === 1 ? (calls[0] as TrackedCall) : 'ambiguous';
    const open = calls.filter((c) => !isCompleteStructuredValue(c.arguments));
    if (open.length === 1) return open[0] as TrackedCall;
    return open.length > 1 ? 'ambiguous' : 'new';
  }

  private start(
    delta: ToolCallDelta,
    wireId: string | undefined,
    index: number | undefined,
    name: string | undefined,
  ): TrackedCall {
    if (name === undefined)
      throw new InvalidResponseDataError({
        data: delta,
        message: `Expected 'function.name' to be a string.`,
      });
    const id = this.uniqueId(wireId);
    this.emit({ type: 'tool-input-start', id, toolName: name });
    const call: TrackedCall = {
      id,
      index,
      sequence: this.calls.length,
      name,
      arguments: delta.function.arguments ?? '',
      finished: false,
    };
    this.calls.push(call);
    if (wireId !== undefined) this.associate(this.byId, wireId, call);
    return call;
  }

  private associate<K>(map: Map<K, Set<TrackedCall>>, key: K, call: TrackedCall): void {
    let set = map.get(key);
    if (set === undefined) map.set(key, (set = new Set()));
    set.add(call);
  }

  /** The server's id when it is new, else a fresh one (suffixed if even that was taken). */
  private uniqueId(wireId: string | undefined): string {
    if (wireId !== undefined && !this.usedIds.has(wireId)) {
      this.usedIds.add(wireId);
      return wireId;
    }
    const generated = nonBlank(this.newId()) ?? 'tool-call';
    if (!this.usedIds.has(generated)) {
      this.usedIds.add(generated);
      return generated;
    }
    for (let suffix = this.nextSuffix.get(generated) ?? 1; ; suffix++) {
      const id = `${generated}-${suffix}`;
      if (this.usedIds.has(id)) continue;
      this.usedIds.add(id);
      this.nextSuffix.set(generated, suffix + 1);
      return id;
    }
  }
}
