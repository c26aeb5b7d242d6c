import type { ChatMessage } from '../types/messages.js';
import { SUMMARY_HEADING } from './summary-prompt.js';

/** What may be summarised of a history, and how to rebuild it around the summary. */
export interface CompressionPlan {
  /** The older messages to summarise, in order. */
  older: ChatMessage[];
  /** The history with `older` replaced by `summary` (at the place of the first of them). */
  rebuild(summary: ChatMessage): ChatMessage[];
}

export interface PlanOptions {
  /** Tool calls that are part of the protocol (new_answer, vote…): their steps are kept verbatim. */
  protectedTools: ReadonlySet<string>;
  /** The core's token estimate of a list of messages (tool definitions included). */
  estimate: (messages: readonly ChatMessage[]) => number;
  /** Tokens the rebuilt history should come to at most, the summary included. */
  targetTokens: number;
  /** Tokens reserved for the summary. */
  summaryTokens: number;
}

interface Group {
  indices: number[];
  /** A step (a reply with its tool results) or an earlier summary: may be summarised. */
  foldable: boolean;
}

/**
 * Splits a history into what stays verbatim and what is summarised. Stays: everything before the
 * model's first reply or an earlier summary (the system prompt, the question, the peers' answers), every message of
 * massgen's own (updates with new answers, reminders, the user's messages), every step with a
 * workflow call, and the most recent steps that fit the target (at least the latest). Summarised: the
 * older steps — the model's replies with their tool results, whole, so no call loses its result — and
 * earlier summaries. Null when fewer than two messages could go.
 */
export function planCompression(
  messages: readonly ChatMessage[],
  options: PlanOptions,
): CompressionPlan | null {
  // The opening ends at the model's first reply, or at an earlier summary (which sits in its place).
  const first = messages.findIndex(
    (m) => m.role === 'assistant' || (m.role === 'user' && m.content.startsWith(SUMMARY_HEADING)),
  );
  if (first === -1) return null;
  const groups: Group[] = [];
  for (let i = first; i < messages.length;) {
    const m = messages[i] as ChatMessage;
    if (m.role === 'assistant') {
      const indices = [i++];
      while (i < messages.length && messages[i]?.role === 'tool') indices.push(i++);
      const isProtocol = (m.toolCalls ?? []).some((c) => options.protectedTools.has(c.name));
      groups.push({ indices, foldable: !isProtocol });
      continue;
    }
    // Only massgen writes user messages, so a summary heading there is one of ours.
    groups.push({ indices: [i], foldable: m.role === 'user' && m.content.startsWith(SUMMARY_HEADING) });
    i++;
  }
  // The latest step stays, and as many recent ones after it as fit beside what must stay.
  const latest = groups.findLastIndex((g) => messages[g.indices[0] as number]?.role === 'assistant');
  const fold = new Set<number>();
  for (const [n, group] of groups.entries()) if (group.foldable && n !== latest) fold.add(n);
  const kept = (candidates: ReadonlySet<number>) =>
    messages.filter((_, i) => !groups.some((g, n) => candidates.has(n) && g.indices.includes(i)));
  for (let n = groups.length - 1; n >= 0; n--) {
    if (!fold.has(n)) continue;
    fold.delete(n);
    if (options.estimate(kept(fold)) + options.summaryTokens > options.targetTokens) {
      fold.add(n);
      break;
    }
  }
  const foldedIndices = new Set([...fold].flatMap((n) => (groups[n] as Group).indices));
  if (foldedIndices.size < 2) return null;
  const older = messages.filter((_, i) => foldedIndices.has(i));
  const firstFolded = Math.min(...foldedIndices);
  return {
    older,
    rebuild: (summary) =>
      messages.flatMap((m, i) => (i === firstFolded ? [summary] : foldedIndices.has(i) ? [] : [m])),
  };
}
