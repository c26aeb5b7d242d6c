/*
 * Cost wording, one rule for every view (the terminal views, the web page, batch and eval output):
 * unknown is never shown as zero. A model with no known price costs "unknown", and a sum with any
 * unknown part says so beside what is known. No imports: the web page bundles this file too.
 */

/** Dollars for display: more digits for small amounts, so a cheap run does not read as $0.00. */
export function formatUsd(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

/** What a sum of costs says when nothing of it is known. */
export const COST_UNKNOWN = 'cost unknown';

/** One part of a cost: dollars known, and whether the model's price is known (else `usd` is only what tools billed). */
export interface CostPart {
  usd: number;
  priced: boolean;
}

/**
 * The cost of some agents (or runs): `$0.0123` when every part is priced, `$0.0123 + unknown` when some
 * part has no known price (what is known — a priced agent, a billed tool call — still counts), and
 * `cost unknown` when nothing is known. No parts at all cost nothing: `$0.0000`.
 */
export function formatCostOf(parts: readonly CostPart[]): string {
  if (parts.length > 0 && parts.every((p) => !p.priced && p.usd === 0)) return COST_UNKNOWN;
  const usd = parts.reduce((sum, p) => sum + p.usd, 0);
  return `${formatUsd(usd)}${parts.some((p) => !p.priced) ? ' + unknown' : ''}`;
}

/** {@link formatCostOf} over agents as the run state keeps them (`costUsd`, `priced`). */
export function formatAgentsCost(agents: readonly { costUsd: number; priced: boolean }[]): string {
  return formatCostOf(agents.map((a) => ({ usd: a.costUsd, priced: a.priced })));
}
