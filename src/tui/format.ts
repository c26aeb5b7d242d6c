import type { RunState } from '../types/run-state.js';
import type { TokenUsage } from '../types/usage.js';
import {
  formatAgentsCost,
  formatUsd,
  oneLine,
  tailFrom,
  truncate,
  wrapText as wrapColumns,
} from '../util/text.js';
import { inertText } from '../util/terminal-text.js';

/**
 * Small pure formatting helpers of the live view: numbers, durations, and text cut to a terminal width.
 * Widths are terminal columns (a CJK character or an emoji takes two) and text is cut only between
 * characters (grapheme clusters), never inside an emoji sequence or before a combining mark — see
 * util/text. Text is made inert first, then measured: an escape sequence shown as `␛[2J` takes the
 * columns it shows in.
 */

export { formatUsd };

/** Token counts, compact: `950`, `1.2k`, `34k`, `1.5M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Input plus output tokens (output includes reasoning, as the AI SDK counts them). */
export const tokensOf = (usage: TokenUsage): number => usage.inputTokens + usage.outputTokens;

/** Elapsed time: `4.2s`, `1m 05s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const totalSeconds = Math.max(0, ms) / 1000;
  if (totalSeconds < 60) return `${totalSeconds.toFixed(1)}s`;
  const seconds = Math.floor(totalSeconds);
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Seconds with one decimal, for durations of tool calls and retries. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** The cost of some agents, as every view words it (util/cost-text). */
export function formatCost(run: RunState, agentIds?: readonly string[]): string {
  const agents = agentIds ? run.agents.filter((a) => agentIds.includes(a.agentId)) : run.agents;
  return formatAgentsCost(agents);
}

/** Tool arguments as one short line. */
export function formatArguments(args: unknown, max = 80): string {
  let json: string | undefined;
  try {
    json = typeof args === 'string' ? args : JSON.stringify(args);
  } catch {
    json = String(args);
  }
  return truncate(oneLine(json ?? ''), max);
}

/**
 * Terminal controls in model output shown escaped, never run (`inertText`: `\x1b[2J` → `␛[2J`). The
 * live view's store already makes every event inert before it is reduced; this keeps text that reaches
 * the layout another way (a direct `reduceView` caller) inert too. Idempotent.
 */
export function sanitize(text: string): string {
  return inertText(text);
}

/** Wraps text to `width` columns (see util/text's `wrapText`), made inert first. */
export function wrapText(text: string, width: number): string[] {
  return wrapColumns(sanitize(text), width);
}

/**
 * The last `max` lines of `text` wrapped to `width`, computed from the end so a long stream costs only
 * what shows. Trailing blank lines are dropped.
 */
export function tailLines(text: string, width: number, max: number): string[] {
  if (max <= 0) return [];
  const w = Math.max(1, Math.floor(width));
  const source = text.trimEnd();
  const out: string[] = [];
  let end = source.length;
  while (end > 0 && out.length < max) {
    const start = source.lastIndexOf('\n', end - 1) + 1;
    const paragraph = source.slice(start, end);
    // A huge paragraph: only its end can show. Wrapped from a character boundary some way back (made
    // inert, then measured), and from further back when that does not fill the lines.
    let wrapped: string[] = [];
    for (let keep = (max + 1) * w * 2; ; keep *= 4) {
      const cut = paragraph.length > keep;
      wrapped = wrapColumns(sanitize(cut ? tailFrom(paragraph, paragraph.length - keep) : paragraph), w);
      if (!cut || wrapped.length > max) break;
    }
    out.unshift(...wrapped);
    end = start - 1;
  }
  return out.slice(Math.max(0, out.length - max));
}

/** The first `max` lines of `text` wrapped to `width`, and how many lines were left out. */
export function headLines(text: string, width: number, max: number): { lines: string[]; hidden: number } {
  const all = wrapText(text.trim(), width);
  if (all.length <= max) return { lines: all, hidden: 0 };
  return { lines: all.slice(0, Math.max(0, max)), hidden: all.length - Math.max(0, max) };
}

/** A preformatted line (padding kept) cut to `width`. */
export function cutLine(text: string, width: number): string {
  return truncate(sanitize(text.replace(/\n/g, ' ')), Math.max(1, width));
}

/** One line: whitespace collapsed, cut to `width`. */
export function fitLine(text: string, width: number): string {
  return truncate(oneLine(sanitize(text)), Math.max(1, width));
}
