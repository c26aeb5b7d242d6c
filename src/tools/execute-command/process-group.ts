import { readdir, readFile } from 'node:fs/promises';
import { sleep } from '../../util/abort.js';

/** How long processes get between SIGTERM and SIGKILL. */
export const TERM_GRACE_MS = 2_000;
const KILL_WAIT_MS = 1_000;
const POLL_MS = 50;

/**
 * The processes still running (zombies excluded) in process group `pgid`, or anywhere with `marker`
 * in their environment (a command's descendants that left the group, e.g. with setsid). Null when
 * there is no /proc to look at.
 */
export async function findProcesses(pgid: number, marker: string | null): Promise<number[] | null> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return null;
  }
  const found: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const pid = Number(entry);
      if (pid === process.pid) return;
      let stat: string;
      try {
        stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      } catch {
        return;
      }
      // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const state = fields[0];
      if (state === 'Z' || state === 'X' || state === 'x') return;
      if (Number(fields[2]) === pgid) {
        found.push(pid);
        return;
      }
      if (marker === null) return;
      try {
        if ((await readFile(`/proc/${entry}/environ`, 'latin1')).includes(marker)) found.push(pid);
      } catch {
        // Another user's process: not ours.
      }
    }),
  );
  return found;
}

async function living(pgid: number, marker: string | null): Promise<number[]> {
  const found = await findProcesses(pgid, marker);
  if (found !== null) return found;
  try {
    process.kill(-pgid, 0);
    return [pgid];
  } catch {
    return [];
  }
}

function signalAll(pgid: number, pids: readonly number[], name: NodeJS.Signals): void {
  for (const target of [-pgid, ...pids]) {
    try {
      process.kill(target, name);
    } catch {
      // ESRCH: already gone.
    }
  }
}

/**
 * Stops everything a command started: its whole process group (the command was spawned as a group
 * leader) and, on Linux, every process carrying its marker. SIGTERM first, SIGKILL after
 * {@link TERM_GRACE_MS}. Returns at once when nothing is left.
 */
export async function stopProcessGroup(
  pgid: number,
  marker: string | null,
  graceMs = TERM_GRACE_MS,
): Promise<void> {
  let alive = await living(pgid, marker);
  if (alive.length === 0) return;
  signalAll(pgid, alive, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    alive = await living(pgid, marker);
    if (alive.length === 0) return;
  }
  signalAll(pgid, alive, 'SIGKILL');
  const killDeadline = Date.now() + KILL_WAIT_MS;
  while (Date.now() < killDeadline) {
    await sleep(POLL_MS);
    if ((await living(pgid, marker)).length === 0) return;
  }
}
