import type { SystemSummary } from './report.js';

const W = 720;
const H = 440;
const M = { left: 70, right: 170, top: 40, bottom: 60 };
const COLORS: Record<SystemSummary['kind'], string> = {
  team: '#d62728',
  single: '#1f77b4',
  majority: '#2ca02c',
  'single-call': '#ff7f0e',
  'best-of-n': '#9467bd',
  oracle: '#7f7f7f',
};

const SINGLE_SHADES = ['#1f77b4', '#17becf', '#6a3d9a', '#8c564b', '#e377c2', '#bcbd22'];

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fixed = (n: number) => Number(n.toFixed(1));

/** Tick values from 0 to a round maximum covering `max`. */
function ticks(max: number): number[] {
  if (max <= 0) return [0, 1];
  const step0 = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(step0));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= step0) ?? 10) * magnitude;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => Number((i * step).toPrecision(6)));
}

function formatTick(value: number, dollars: boolean): string {
  if (!dollars) return value >= 1000 ? `${Number((value / 1000).toPrecision(3))}k` : String(value);
  return value === 0 ? '$0' : `$${Number(value.toPrecision(3))}`;
}

/**
 * Accuracy (with its 95% interval) against cost per question, one point per system; the oracle is a
 * dashed line (a ceiling, not a system). Plain SVG with its own fonts and no scripts, readable by any
 * viewer. When every system cost $0 (local or unpriced models), tokens per question stand in for cost.
 */
export function accuracyCostChart(systems: readonly SystemSummary[], title: string): string {
  const points = systems.filter((s) => s.costUsdPerQuestion !== null);
  const dollars = points.some((s) => (s.costUsdPerQuestion ?? 0) > 0);
  const xOf = (s: SystemSummary) => (dollars ? (s.costUsdPerQuestion ?? 0) : (s.tokensPerQuestion ?? 0));
  const xTicks = ticks(Math.max(0, ...points.map(xOf)));
  const xMax = xTicks.at(-1) as number;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const px = (v: number) => fixed(M.left + (xMax === 0 ? 0 : (v / xMax) * plotW));
  const py = (v: number) => fixed(M.top + (1 - v) * plotH);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(
      `<line x1="${M.left}" y1="${py(v)}" x2="${M.left + plotW}" y2="${py(v)}" stroke="#e0e0e0"/>`,
      `<text x="${M.left - 8}" y="${py(v) + 4}" text-anchor="end">${Math.round(v * 100)}%</text>`,
    );
  }
  for (const v of xTicks)
    out.push(
      `<line x1="${px(v)}" y1="${M.top + plotH}" x2="${px(v)}" y2="${M.top + plotH + 5}" stroke="#333"/>`,
      `<text x="${px(v)}" y="${M.top + plotH + 19}" text-anchor="middle">${formatTick(v, dollars)}</text>`,
    );
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${M.left + plotW / 2}" y="${H - 18}" text-anchor="middle">${
      dollars ? 'cost per question (USD)' : 'tokens per question (every system cost $0)'
    }</text>`,
    `<text transform="translate(18 ${M.top + plotH / 2}) rotate(-90)" text-anchor="middle">accuracy (95% Wilson interval)</text>`,
  );
  const oracle = systems.find((s) => s.kind === 'oracle');
  if (oracle)
    out.push(
      `<line x1="${M.left}" y1="${py(oracle.accuracy)}" x2="${M.left + plotW}" y2="${py(oracle.accuracy)}" stroke="${COLORS.oracle}" stroke-dasharray="6 4"/>`,
      `<text x="${M.left + 6}" y="${py(oracle.accuracy) - 5}" fill="${COLORS.oracle}">oracle (some agent right) ${Math.round(oracle.accuracy * 100)}%</text>`,
    );
  // Labels in the right margin, one per system, joined to their points.
  const singles = points.filter((s) => s.kind === 'single');
  points.forEach((s, i) => {
    // Single agents often cost about the same: spread them a little, each in its own shade.
    const nth = singles.indexOf(s);
    const x = fixed(px(xOf(s)) + (nth < 0 ? 0 : (nth - (singles.length - 1) / 2) * 9));
    const color = nth < 0 ? COLORS[s.kind] : (SINGLE_SHADES[nth % SINGLE_SHADES.length] as string);
    const labelY = fixed(M.top + 14 + i * 18);
    out.push(
      `<line x1="${x}" y1="${py(s.ci95.low)}" x2="${x}" y2="${py(s.ci95.high)}" stroke="${color}" stroke-width="2"/>`,
      `<line x1="${x - 5}" y1="${py(s.ci95.low)}" x2="${x + 5}" y2="${py(s.ci95.low)}" stroke="${color}" stroke-width="2"/>`,
      `<line x1="${x - 5}" y1="${py(s.ci95.high)}" x2="${x + 5}" y2="${py(s.ci95.high)}" stroke="${color}" stroke-width="2"/>`,
      `<circle cx="${x}" cy="${py(s.accuracy)}" r="${s.kind === 'team' ? 7 : 5}" fill="${color}" stroke="#fff"/>`,
      `<circle cx="${M.left + plotW + 12}" cy="${labelY + 20}" r="4" fill="${color}"/>`,
      `<text x="${M.left + plotW + 20}" y="${labelY + 24}">${escape(s.name)} ${Math.round(s.accuracy * 100)}%</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
