/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** An interval of a proportion. */
export interface Interval {
  low: number;
  high: number;
}

/**
 * The Wilson score interval of `successes` out of `n` (95% by default). With n = 0 it is [0, 1].
 * center = (p + z²/2n) / (1 + z²/n); half-width = z·√(p(1−p)/n + z²/4n²) / (1 + z²/n).
 */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval {
  if (n === 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/**
 * McNemar's exact test of paired right/wrong outcomes: `b` questions only the first system got right,
 * `c` only the second. Two-sided p = min(1, 2 · P(X ≤ min(b, c))) for X ~ Binomial(b + c, ½); 1 when
 * the systems never disagree. Summed in log space, so it holds for any number of questions.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let logChoose = 0; // log C(n, 0)
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logChoose - n * Math.LN2);
  }
  return Math.min(1, 2 * tail);
}
