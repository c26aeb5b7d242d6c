/** Shortens text to `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Collapses whitespace into single spaces (for one-line previews). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Dollars for display: more digits for small amounts, so a cheap run does not read as $0.00. */
export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/**
 * The cost of some agents: `$0.0123`, `$0.0123+` when some have no known price, `cost unknown` when
 * none has.
 */
export function formatCostOf(parts: readonly { usd: number; priced: boolean }[]): string {
  if (parts.every((p) => !p.priced)) return 'cost unknown';
  const usd = parts.reduce((sum, p) => sum + p.usd, 0);
  return `${formatUsd(usd)}${parts.some((p) => !p.priced) ? '+' : ''}`;
}
