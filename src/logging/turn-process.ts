import os from 'node:os';
import type { StoredTurn, TurnProcess } from './session-types.js';
import { errorCode } from '../util/guards.js';

/** This process, as a turn records it at its start. */
export function thisProcess(): TurnProcess {
  return { pid: process.pid, hostname: os.hostname() };
}

/** True when a process with this id exists (one we may not signal still exists: EPERM). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * The process id of an unfinished turn whose process is still alive on this host, else null. Such a
 * turn is not cut off but running in another terminal: `--continue` leaves its subagents to it rather
 * than starting them a second time. A process on another host cannot be asked, so it counts as gone
 * (a session folder shared between hosts is not a use this guards). A recycled pid only errs on the
 * safe side: subagents left alone, said so.
 */
export function stillRunningProcess(turn: Pick<StoredTurn, 'unfinished' | 'process'>): number | null {
  const owner = turn.process;
  if (!turn.unfinished || owner === null || owner.hostname !== os.hostname()) return null;
  return processExists(owner.pid) ? owner.pid : null;
}
