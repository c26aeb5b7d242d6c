import type { RunEvent, RunEventOf } from '../types/events.js';
import { oneLine, padEndTo, padStartTo, textWidth, truncate, wrapText } from '../util/text.js';
import { describeEvent, seconds, type TableRow } from './table-rows.js';

/** Narrower columns wrap almost every cell; wider ones make three agents overflow a terminal. */
const MIN_COLUMN_WIDTH = 24;
const MAX_COLUMN_WIDTH = 40;
/**
 * Above this many agents the grid would be thousands of columns wide, and its size grows with agents
 * times rows (a thousand agents made a 350 MB file): the table lists the events instead.
 */
export const MAX_GRID_COLUMNS = 16;
/** The event column of the list layout. */
const EVENT_WIDTH = 80;
const SEPARATOR = ' | ';

interface Column {
  agentId: string;
  header: string;
  width: number;
}

/**
 * `coordination_table.txt`, built as the events arrive: it keeps only the agents' columns and the rows
 * of significant events (not the events), so a long run costs what its table holds.
 */
export class CoordinationTable {
  /** Config order (from run.started), plus any agent that shows up without being announced. */
  private readonly columns = new Map<string, Column>();
  private readonly rows: TableRow[] = [];
  private first: RunEvent | null = null;
  private runStarted: RunEventOf<'run.started'> | null = null;

  /** Takes one event of the run, in order. */
  add(event: RunEvent): void {
    this.first ??= event;
    if (event.type === 'run.started') {
      this.runStarted ??= event;
      for (const a of event.agents) this.addColumn(a.agentId, a.anonymousId);
    } else if ('agentId' in event) {
      this.addColumn(event.agentId, null);
    }
    const row = describeEvent(event);
    if (row) this.rows.push({ ts: event.ts, ...row });
  }

  private addColumn(agentId: string, anonymousId: string | null): void {
    if (this.columns.has(agentId)) return;
    const header = anonymousId ? `${agentId} (${anonymousId})` : agentId;
    this.columns.set(agentId, {
      agentId,
      header,
      width: Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, textWidth(header))),
    });
  }

  /**
   * The table as text: a time column (seconds since the run started) and, for up to
   * {@link MAX_GRID_COLUMNS} agents, one column per agent headed `agent id (anonymous id)` with one row
   * per significant event; for more agents one `agent` column and one `event` column. Run-wide events
   * (votes reset, coordination and run finished) span every column. Long cells wrap within their
   * column, so columns stay aligned — in terminal columns (util/text), so CJK text and emoji line up
   * too. The text is kept as data (not made inert).
   */
  render(): string {
    const first = this.first;
    if (!first) return 'No events recorded.\n';
    const runStarted = this.runStarted;
    const startTs = (runStarted ?? first).ts;
    const columns = [...this.columns.values()];
    const grid = columns.length <= MAX_GRID_COLUMNS;
    const rows = this.rows.map((row) => ({
      time: seconds(row.ts - startTs),
      agentId: row.agentId,
      text: typeof row.text === 'string' ? row.text : row.text(startTs),
    }));
    const timeHeader = 'time (s)';
    const timeWidth = Math.max(timeHeader.length, ...rows.map((r) => r.time.length));
    // The list layout: the agent column as wide as its widest header (within the usual bounds).
    const agentWidth = Math.min(
      MAX_COLUMN_WIDTH,
      Math.max(MIN_COLUMN_WIDTH, ...columns.map((c) => textWidth(c.header))),
    );
    const shown: Column[] = grid
      ? columns
      : [
          { agentId: '', header: 'agent', width: agentWidth },
          { agentId: '', header: 'event', width: EVENT_WIDTH },
        ];
    const widths = shown.map((c) => c.width);
    const spanWidth = Math.max(
      MIN_COLUMN_WIDTH,
      widths.reduce((sum, w) => sum + w, 0) + SEPARATOR.length * Math.max(0, shown.length - 1),
    );

    const lines: string[] = [];
    const emit = (time: string, cells: string[][], cellWidths: number[]): void => {
      const height = Math.max(...cells.map((c) => c.length));
      for (let i = 0; i < height; i++) {
        const parts = cells.map((cell, j) => padEndTo(cell[i] ?? '', cellWidths[j] ?? 0));
        lines.push([padStartTo(i === 0 ? time : '', timeWidth), ...parts].join(SEPARATOR).trimEnd());
      }
    };
    emit(
      timeHeader,
      shown.map((c) => wrapText(c.header, c.width)),
      widths,
    );
    const dashes = shown.length > 0 ? widths.map((w) => '-'.repeat(w)) : ['-'.repeat(spanWidth)];
    lines.push(['-'.repeat(timeWidth), ...dashes].join('-+-'));
    for (const row of rows) {
      if (row.agentId === null) {
        emit(row.time, [wrapText(row.text, spanWidth)], [spanWidth]);
      } else if (grid) {
        const cells = columns.map((c) => (c.agentId === row.agentId ? wrapText(row.text, c.width) : ['']));
        emit(row.time, cells, widths);
      } else {
        const header = this.columns.get(row.agentId)?.header ?? row.agentId;
        emit(row.time, [wrapText(header, agentWidth), wrapText(row.text, EVENT_WIDTH)], widths);
      }
    }

    const title = [`Run: ${first.runId}`];
    if (runStarted) title.push(`Question: ${truncate(oneLine(runStarted.question), 200)}`);
    return `${title.join('\n')}\n\n${lines.join('\n')}\n`;
  }
}

/**
 * Renders a whole run's events as `coordination_table.txt` (see {@link CoordinationTable.render}). Pure.
 */
export function formatCoordinationTable(events: readonly RunEvent[]): string {
  const table = new CoordinationTable();
  for (const event of events) table.add(event);
  return table.render();
}
