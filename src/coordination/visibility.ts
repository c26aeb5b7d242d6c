import type { Visibility } from './settings.js';

/**
 * Who sees whose answers, per agent index (each set includes the agent itself). With `all` every
 * agent reads every answer (context O(N) per agent); the others keep it O(k) so large teams stay
 * feasible: `ring` — the next k agents around a circle; `random_k` — k peers drawn once per run
 * (from the injected random source, so a seeded clock reproduces it); `islands` — groups of k+…
 * agents that only see each other, joined at the end by a final round among the island winners.
 */
export function visibleSets(
  visibility: Visibility,
  count: number,
  k: number,
  random: () => number,
): Set<number>[] {
  const indices = Array.from({ length: count }, (_, i) => i);
  switch (visibility) {
    case 'all':
      return indices.map(() => new Set(indices));
    case 'ring':
      return indices.map(
        (i) => new Set([i, ...Array.from({ length: Math.min(k, count - 1) }, (_, d) => (i + d + 1) % count)]),
      );
    case 'random_k':
      return indices.map((i) => {
        const others = indices.filter((j) => j !== i);
        // Fisher–Yates on the peers, first k kept.
        for (let j = others.length - 1; j > 0; j--) {
          const r = Math.floor(random() * (j + 1));
          [others[j], others[r]] = [others[r] as number, others[j] as number];
        }
        return new Set([i, ...others.slice(0, k)]);
      });
    case 'islands':
      return indices.map((i) => new Set(islandOf(i, count, k)));
  }
}

/** The members of agent `i`'s island: consecutive groups of `size`; a lone remainder joins the last island. */
export function islandOf(i: number, count: number, size: number): number[] {
  const islands = islandsOf(count, size);
  return islands.find((island) => island.includes(i)) ?? [i];
}

/** Every island, in order. */
export function islandsOf(count: number, size: number): number[][] {
  const width = Math.max(2, size);
  const islands: number[][] = [];
  for (let start = 0; start < count; start += width) {
    islands.push(Array.from({ length: Math.min(width, count - start) }, (_, d) => start + d));
  }
  const last = islands.at(-1);
  if (islands.length > 1 && last && last.length === 1) {
    islands.pop();
    islands.at(-1)?.push(...last);
  }
  return islands;
}
