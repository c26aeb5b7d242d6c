import type { Backend } from '../types/backend.js';
import type { RunEvent } from '../types/events.js';
import type { MemoryKind, MemoryRecord } from './types.js';
import { MEMORY_KINDS } from './types.js';

/** What the extraction step knows about a finished run. */
export interface FinishedRun {
  runId: string;
  question: string;
  finalAnswer: string;
  winnerId: string | null;
  /** The run's answer and vote events, in order. */
  events: readonly RunEvent[];
  /** True when this run was a follow-up in a session: its question is the user's feedback. */
  followUp: boolean;
}

export type ExtractedMemory = Pick<MemoryRecord, 'kind' | 'text' | 'source'>;

/** Items of one extraction at most, and characters of one item. */
const MAX_ITEMS = 8;
const MAX_TEXT = 600;

export const EXTRACTION_SYSTEM_PROMPT =
  'You are the memory extraction step of a multi-agent run. From the run below, list the facts and ' +
  'decisions worth remembering for future runs (stated facts, the decision reached, what the agents ' +
  'disagreed on, the user\'s feedback). Reply with JSON only: {"memories":[{"kind":"fact|decision|disagreement|feedback","text":"..."}]}. ' +
  'Each text must stand alone. Never include keys, passwords or tokens.';

const clip = (text: string, max = MAX_TEXT) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

/** Who voted for whose answer, when the agents did not all agree; null when they did. */
export function disagreement(events: readonly RunEvent[]): string | null {
  const latest = new Map<string, string>();
  for (const e of events) if (e.type === 'vote.cast' && e.counted) latest.set(e.agentId!, e.targetAgentId);
  const targets = new Set(latest.values());
  if (targets.size < 2) return null;
  const parts = [...latest].map(([voter, target]) => `${voter} voted for ${target}'s answer`);
  return `The agents disagreed: ${parts.join('; ')}.`;
}

/** The deterministic memories of a run (used when the model call fails or says nothing usable). */
export function fallbackMemories(run: FinishedRun): ExtractedMemory[] {
  const out: ExtractedMemory[] = [
    {
      kind: 'decision',
      text: clip(`Asked "${clip(run.question, 200)}", the team answered: ${run.finalAnswer}`),
      source: 'fallback',
    },
  ];
  const split = disagreement(run.events);
  if (split) out.push({ kind: 'disagreement', text: clip(split), source: 'fallback' });
  if (run.followUp)
    out.push({ kind: 'feedback', text: clip(`User follow-up: ${run.question}`), source: 'fallback' });
  return out;
}

/** The user message of the extraction call. */
function extractionPrompt(run: FinishedRun): string {
  const split = disagreement(run.events);
  return [
    `${run.followUp ? 'User follow-up' : 'Question'}: ${clip(run.question, 2000)}`,
    `Final answer${run.winnerId ? ` (by ${run.winnerId})` : ''}: ${clip(run.finalAnswer, 4000)}`,
    ...(split ? [split] : []),
  ].join('\n\n');
}

/** Parses the model's reply: the JSON object (maybe in a code fence), or null. */
export function parseExtraction(text: string): ExtractedMemory[] | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const parsed = JSON.parse(text.slice(start, end + 1)) as { memories?: unknown };
    if (!Array.isArray(parsed.memories)) return null;
    const items = parsed.memories
      .filter(
        (m): m is { kind?: unknown; text: string } => typeof m?.text === 'string' && m.text.trim() !== '',
      )
      .slice(0, MAX_ITEMS)
      .map((m) => ({
        kind: (MEMORY_KINDS as readonly unknown[]).includes(m.kind) ? (m.kind as MemoryKind) : 'fact',
        text: clip(m.text),
        source: 'extraction',
      }));
    return items.length > 0 ? items : null;
  } catch {
    return null;
  }
}

/**
 * The memories of a finished run: one model call on `backend` (no tools, no retries), or the
 * deterministic fallback when the call fails or its reply cannot be read.
 */
export async function extractMemories(
  run: FinishedRun,
  backend: Backend | null,
  signal: AbortSignal,
): Promise<{ memories: ExtractedMemory[]; fallback: string | null }> {
  if (!backend) return { memories: fallbackMemories(run), fallback: 'no model for the extraction step' };
  try {
    let text = '';
    for await (const part of backend.stream({
      messages: [
        { role: 'system', content: EXTRACTION_SYSTEM_PROMPT },
        { role: 'user', content: extractionPrompt(run) },
      ],
      tools: [],
      signal,
    })) {
      if (part.type === 'text-delta') text += part.text;
    }
    const parsed = parseExtraction(text);
    if (parsed) {
      // The decision is always kept, whatever the model chose to list.
      const fallback = fallbackMemories(run).filter((m) => m.kind === 'decision');
      return { memories: [...parsed, ...fallback], fallback: null };
    }
    return { memories: fallbackMemories(run), fallback: 'the extraction reply was not the JSON asked for' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { memories: fallbackMemories(run), fallback: `the extraction call failed: ${message}` };
  }
}
