/**
 * Edit distance between two strings, counting insertions, deletions, substitutions and swaps of
 * two adjacent characters as one edit each (optimal string alignment). Plain Levenshtein would
 * charge two edits for `modle` → `model`, and swapped letters are the most common typo in config keys.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rolling rows are enough: the swap rule looks back two rows.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current.push(best);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
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
