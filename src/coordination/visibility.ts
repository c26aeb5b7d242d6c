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
): ReadonlySet<number>[] {
  const indices = Array.from({ length: count }, (_, i) => i);
  switch (visibility) {
    case 'all': {
      // One set shared by every agent: a copy each would be O(N²) memory for a large team.
      const everyone = new Set(indices);
      return indices.map(() => everyone);
    }
    case 'ring':
      return indices.map(
        (i) => new Set([i, ...Array.from({ length: Math.min(k, count - 1) }, (_, d) => (i + d + 1) % count)]),
      );
    case 'random_k': {
      // One scratch array for every agent's shuffle: an array of peers per agent is O(N²) garbage.
      const peers = new Int32Array(Math.max(0, count - 1));
      return indices.map((i) => new Set([i, ...shuffledPeers(peers, i, k, random)]));
    }
    case 'islands': {
      // Members of one island share one set.
      const sets: ReadonlySet<number>[] = [];
      for (const island of islandsOf(count, k)) {
        const members = new Set(island);
        for (const i of island) sets[i] = members;
      }
      return indices.map((i) => sets[i] ?? new Set([i]));
    }
  }
}

/** The first `k` of agent `i`'s peers (every index but `i`, ascending) after a Fisher–Yates shuffle from the end. */
function shuffledPeers(peers: Int32Array, i: number, k: number, random: () => number): number[] {
  for (let j = 0; j < peers.length; j++) peers[j] = j < i ? j : j + 1;
  for (let j = peers.length - 1; j > 0; j--) {
    const r = Math.floor(random() * (j + 1));
    const value = peers[j] as number;
    peers[j] = peers[r] as number;
    peers[r] = value;
  }
  return Array.from(peers.subarray(0, Math.min(k, peers.length)));
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
