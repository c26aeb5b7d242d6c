/**
 * The eval statistics written out by hand from their formulas (docs/eval.md, The report), for the e2e
 * tests to check the reports against — independent of src/eval/stats.ts.
 */

const Z = 1.959963984540054;

/** The Wilson 95% interval of k right out of n. */
export function wilson(k: number, n: number): { low: number; high: number } {
  const p = k / n;
  const center = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const half = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / (1 + (Z * Z) / n);
  return { low: center - half, high: center + half };
}

const choose = (n: number, k: number): number => (k === 0 ? 1 : (choose(n, k - 1) * (n - k + 1)) / k);

/** McNemar's exact two-sided p from the discordant counts. */
export function mcnemar(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(b, c); i++) tail += choose(n, i) / 2 ** n;
  return Math.min(1, 2 * tail);
}
