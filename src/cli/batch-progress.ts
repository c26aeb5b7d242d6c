import type { BatchProgress, BatchSummary } from '../batch/index.js';
import type { Write } from '../app/plain-display.js';
import { inertText } from '../util/terminal-text.js';
import { formatCostOf } from '../util/text.js';
import { formatDuration } from './progress-bar.js';

/** How {@link createBatchProgress} draws. */
export interface BatchProgressOptions {
  /** A terminal gets one line redrawn in place; anything else (a log, a pipe) a line per result. */
  isTTY: boolean;
  /** Terminal columns; default 80. */
  width?: number;
  /** Milliseconds, for redraw throttling. Default `performance.now`. */
  now?: () => number;
  /**
   * Applied to the text the view quotes (input line ids, winners, run errors, notes), never to its own
   * frame: a run error may hold escape sequences, while the bar needs its carriage return and erase.
   * Default: made inert (`inertText`); the CLI also masks secrets.
   */
  quote?: (text: string) => string;
}

/** The batch's progress on stderr. */
export interface BatchProgressView {
  update(progress: BatchProgress): void;
  /** A message above the bar (a skipped input line, a repaired output file). */
  note(message: string): void;
  /** Clears the bar. */
  end(): void;
}

const REDRAW_MS = 100;

/** `950`, `12.3k`, `4.56M` */
export function formatCount(value: number): string {
  if (value < 1000) return String(Math.round(value));
  if (value < 1_000_000) return `${(value / 1000).toFixed(1)}k`;
  return `${(value / 1_000_000).toFixed(2)}M`;
}

/** `$0.0123` below a dollar, `$12.35` above. */
export const formatUsd = (usd: number) => `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;

/**
 * Dollars, or `cost unknown` when nothing of it is known (a model without a price: unknown is not
 * zero), `$0.0123+` when only part is.
 */
const costOf = (usd: number, known: boolean) => formatCostOf([{ usd, priced: known }]);

/** Runs per second of this invocation, and the time left at that rate ('?' before the first). */
function pace(progress: BatchProgress): { rate: number; eta: string } {
  const seconds = progress.elapsedMs / 1000;
  const rate = seconds > 0 ? progress.written / seconds : 0;
  const left = progress.total - progress.done;
  return { rate, eta: rate > 0 ? formatDuration(left / rate) : '?' };
}

/** `120/200  3.4/s  ETA 24s  1.2M tokens  $0.4321  2 failed`: what both layouts show. */
function figures(progress: BatchProgress): string {
  const { rate, eta } = pace(progress);
  return [
    `${progress.done}/${progress.total}`,
    `${rate.toFixed(rate < 10 ? 2 : 1)}/s`,
    `ETA ${eta}`,
    `${formatCount(progress.tokens)} tokens`,
    costOf(progress.costUsd, progress.costUnknown === 0),
    ...(progress.failed > 0 ? [`${progress.failed} failed`] : []),
  ].join('  ');
}

/**
 * The progress of a batch. On a terminal: `[██████░░░░] 120/200  3.4/s  ETA 24s  1.2M tokens  $0.43`,
 * redrawn in place; elsewhere one line per result (`[120/200] q17 completed, winner a, 1.2s, $0.0012`).
 */
export function createBatchProgress(write: Write, options: BatchProgressOptions): BatchProgressView {
  const now = options.now ?? (() => performance.now());
  const quote = options.quote ?? inertText;
  const width = Math.max(40, options.width ?? 80) - 1;
  let last: BatchProgress | null = null;
  let lastDraw = -Infinity;
  let open = false;

  const draw = (progress: BatchProgress) => {
    const text = figures(progress);
    const room = width - text.length - 3;
    const cells = Math.min(30, room);
    const bar =
      cells >= 10 && progress.total > 0
        ? `[${'█'.repeat(Math.round((cells * progress.done) / progress.total))}${'░'.repeat(
            cells - Math.round((cells * progress.done) / progress.total),
          )}] `
        : '';
    write(`\r${`${bar}${text}`.slice(0, width)}\x1b[K`);
    open = true;
    lastDraw = now();
  };

  return {
    update(progress) {
      last = progress;
      if (options.isTTY) {
        const finished = progress.done >= progress.total;
        if (finished || now() - lastDraw >= REDRAW_MS) draw(progress);
        return;
      }
      const line = progress.line;
      if (!line) return;
      const what =
        line.error !== null
          ? `${line.status}: ${line.error.message}`
          : [
              line.status,
              ...(line.winner ? [`winner ${line.winner}`] : []),
              `${(line.duration_ms / 1000).toFixed(1)}s`,
              costOf(line.cost_usd, line.cost_known),
            ].join(', ');
      write(`[${progress.done}/${progress.total}] ${quote(`${line.id} ${what}`)}\n`);
    },
    note(message) {
      if (open) write('\r\x1b[K');
      write(`massgen batch: ${quote(message)}\n`);
      if (open && last) draw(last);
    },
    end() {
      if (open) write('\r\x1b[K');
      open = false;
    },
  };
}

/** The closing lines (stdout): what was done, at what pace and cost, and what is left. */
export function summaryLines(summary: BatchSummary): string {
  const { rate } = pace(summary);
  // Answered: a line whose run completed. A failed or timed-out run has a line, but no answer.
  const answered = summary.done - summary.failed;
  const lines = [
    `Batch: ${answered} of ${summary.total} answered (${answered} completed, ${summary.failed} failed` +
      `${summary.resumed > 0 ? `, ${summary.resumed} from an earlier run` : ''}) in ${formatDuration(
        summary.elapsedMs / 1000,
      )} — ${rate.toFixed(2)} runs/s, ${formatCount(summary.tokens)} tokens, ${costOf(summary.costUsd, summary.costUnknown === 0)}`,
    `Results: ${summary.output}`,
  ];
  if (summary.stoppedBy === 'cost')
    lines.push(
      `Stopped at the cost limit: ${summary.notRun} not run — run the same command with a higher --max-cost-usd to go on.`,
    );
  else if (summary.stoppedBy === 'interrupt' && summary.notRun > 0)
    lines.push(`Interrupted: ${summary.notRun} not answered yet — run the same command again to resume.`);
  else if (summary.notRun > 0)
    lines.push(
      `${summary.notRun} not answered (their jobs left the queue, e.g. drained) — run the same command again to run them.`,
    );
  return `${lines.join('\n')}\n`;
}
