import { describe, expect, it } from 'vitest';
import { islandsOf, visibleSets } from './visibility.js';

/** A seeded generator (mulberry32), like a seeded run clock's. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The peers as first drawn: a whole array of peers shuffled per agent. Seeded runs must keep these picks. */
function arrayShuffle(count: number, k: number, random: () => number): Set<number>[] {
  const indices = Array.from({ length: count }, (_, i) => i);
  return indices.map((i) => {
    const others = indices.filter((j) => j !== i);
    for (let j = others.length - 1; j > 0; j--) {
      const r = Math.floor(random() * (j + 1));
      [others[j], others[r]] = [others[r] as number, others[j] as number];
    }
    return new Set([i, ...others.slice(0, k)]);
  });
}

describe('visibleSets', () => {
  it('random_k draws the same peers from a seeded source as shuffling an array of every peer', () => {
    for (const [count, k] of [
      [1, 3],
      [2, 3],
      [5, 3],
      [40, 3],
      [40, 50],
      [257, 7],
    ] as const) {
      const got = visibleSets('random_k', count, k, seeded(count * 31 + k)).map((s) => [...s]);
      const want = arrayShuffle(count, k, seeded(count * 31 + k)).map((s) => [...s]);
      expect(got, `${count} agents, k=${k}`).toEqual(want);
    }
  });

  it('all: one set shared by every agent (not a copy of the team per agent)', () => {
    const sets = visibleSets('all', 1000, 3, Math.random);
    expect(new Set(sets).size).toBe(1);
    expect([...(sets[0] ?? [])]).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });

  it('islands: each agent sees its island, members share one set', () => {
    const sets = visibleSets('islands', 7, 3, Math.random);
    for (const island of islandsOf(7, 3)) {
      for (const i of island) expect([...(sets[i] ?? [])]).toEqual(island);
      expect(new Set(island.map((i) => sets[i])).size).toBe(1);
    }
  });
});
