import { readdir, readFile } from 'node:fs/promises';
import { sleep } from '../../util/abort.js';

/** How long processes get between SIGTERM and SIGKILL. */
export const TERM_GRACE_MS = 2_000;
const KILL_WAIT_MS = 1_000;
const POLL_MS = 50;

/**
 * The processes still running (zombies excluded) in process group `pgid`, or anywhere with `marker`
 * in their environment (a command's descendants that left the group, e.g. with setsid). Null when
 * there is no /proc to look at. `uncertain` is set when a user process's environment could not be
 * read or came back empty (a process in the middle of `execve` does, for a moment): it may be one of
 * ours, so look again.
 */
export async function findProcesses(
  pgid: number,
  marker: string | null,
): Promise<(number[] & { uncertain?: boolean }) | null> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return null;
  }
  const found: number[] & { uncertain?: boolean } = [];
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
        const environ = await readFile(`/proc/${entry}/environ`, 'latin1');
        if (environ.includes(marker)) found.push(pid);
        // Kernel threads (children of kthreadd, pid 2) have no environment; anything else should.
        else if (environ === '' && pid !== 2 && fields[1] !== '2') found.uncertain = true;
      } catch (error) {
        // Another user's process is not ours, and a process that is gone needs no stopping; anything
        // else leaves the answer open.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT' && code !== 'ESRCH')
          found.uncertain = true;
      }
    }),
  );
  return found;
}

/** How many times an empty sweep is repeated while a process's environment could not be read. */
const UNCERTAIN_RETRIES = 3;

async function living(pgid: number, marker: string | null): Promise<number[]> {
  let found = await findProcesses(pgid, marker);
  for (let i = 0; found?.length === 0 && found.uncertain && i < UNCERTAIN_RETRIES; i++) {
    await sleep(POLL_MS / 5);
    found = await findProcesses(pgid, marker);
  }
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
