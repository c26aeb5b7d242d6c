import fs from 'node:fs';
import path from 'node:path';
import { readEvents, readStatus } from './cli-harness.js';

/**
 * How a run's log folder ended, read as it is on disk now: status.json (`phase/final status`), the
 * last line of events.jsonl and the last event of coordination_events.json (the file only the final
 * flush completes) as `type/status`. A folder still being written shows it here.
 */
export function logEnd(dir: string): { status: string; journal: string; events: string } {
  const status = readStatus(dir);
  const journal = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n');
  const last = JSON.parse(journal.at(-1) ?? '{}') as { type?: string; status?: string };
  const logged = fs.existsSync(path.join(dir, 'coordination_events.json'))
    ? (readEvents(dir).at(-1) as { type?: string; status?: string } | undefined)
    : undefined;
  return {
    status: `${status.phase}/${status.final.status}`,
    journal: `${last.type}/${last.status}`,
    events: `${logged?.type}/${logged?.status}`,
  };
}

/** {@link logEnd} of a run that ended with `status` and whose logs are closed. */
export const closedLog = (status: string) => ({
  status: `finished/${status}`,
  journal: `run.finished/${status}`,
  events: `run.finished/${status}`,
});
