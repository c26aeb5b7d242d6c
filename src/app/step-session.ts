import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { StepRecord } from '../coordination/index.js';
import { ConfigError } from '../types/errors.js';
import { sleep } from '../util/abort.js';
import { errorCode } from '../util/guards.js';

/**
 * The state of a step-mode session (`massgen step --session-dir DIR`): `DIR/session.json`, the
 * question, the agents in order and every action taken so far. Versioned: a file from a newer massgen
 * is refused with a clear message rather than misread. Written atomically under a lock file, so
 * steps that finish at the same moment do not lose each other's actions. See docs/step-mode.md.
 */

/** The format this massgen writes and reads. */
export const STEP_SESSION_VERSION = 1;

const agent = z.string().min(1);
const at = z.string();

export const StepActionSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('new_answer'), agent, label: z.string(), content: z.string(), at }),
  z.looseObject({
    type: z.literal('vote'),
    agent,
    target: agent,
    target_label: z.string(),
    reason: z.string(),
    at,
  }),
  z.looseObject({ type: z.literal('final_answer'), agent, content: z.string(), at }),
]);

/** Extra keys (an outside loop's own notes) are kept as they are. */
export const StepSessionSchema = z.looseObject({
  version: z.literal(STEP_SESSION_VERSION),
  question: z.string().min(1),
  /** The n-th agent is `agent{n}` to its peers. */
  agents: z.array(agent),
  actions: z.array(StepActionSchema),
});

export type StepAction = z.infer<typeof StepActionSchema>;
export type StepSession = z.infer<typeof StepSessionSchema>;

export const sessionFile = (dir: string): string => path.join(dir, 'session.json');

/**
 * Checks a parsed session file: its version first (a newer one is refused by name), then its shape.
 *
 * @throws {ConfigError} naming the file and the first problem.
 */
export function parseStepSession(raw: unknown, source: string): StepSession {
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    throw new ConfigError(`${source}: not a massgen step session (no integer "version")`, {
      hint: 'give --session-dir a folder of its own; massgen step creates session.json there',
    });
  }
  if (version > STEP_SESSION_VERSION) {
    throw new ConfigError(
      `${source}: written by a newer massgen (session format version ${version}; this massgen reads version ${STEP_SESSION_VERSION})`,
      { hint: 'upgrade massgen (npm install massgen@latest), or start a new session in another folder' },
    );
  }
  const parsed = StepSessionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(top level)';
    throw new ConfigError(`${source}: ${where}: ${issue?.message ?? 'invalid'}`, {
      hint: 'docs/step-mode.md describes the format',
    });
  }
  return parsed.data;
}

/** The session in `dir`, or null when there is none yet. */
export function readStepSession(dir: string): StepSession | null {
  const file = sessionFile(dir);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError(`${file}: not valid JSON`, { hint: 'docs/step-mode.md describes the format' });
  }
  return parseStepSession(raw, file);
}

/** The answers and counted votes of a session, as the coordination core replays them. */
export function stepRecordOf(session: StepSession | null): StepRecord[] {
  return (session?.actions ?? []).flatMap((a): StepRecord[] =>
    a.type === 'new_answer'
      ? [{ type: 'new_answer', agentId: a.agent, content: a.content }]
      : a.type === 'vote'
        ? [{ type: 'vote', agentId: a.agent, targetAgentId: a.target, reason: a.reason }]
        : [],
  );
}

/** A lock older than this is taken to be left by a process that died. */
const STALE_LOCK_MS = 60_000;
const LOCK_WAIT_MS = 30_000;

/** True when the process that wrote the lock is gone. */
function lockIsStale(lock: string): boolean {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
      } catch (error) {
        if (errorCode(error) === 'ESRCH') return true;
      }
    }
    return Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS;
  } catch {
    return false; // gone already: the next attempt takes it
  }
}

/**
 * Reads the session under `DIR/session.lock`, lets `change` produce the next one, and writes it
 * atomically (a temporary file renamed over the old). Returns what was written.
 */
export async function updateStepSession(
  dir: string,
  change: (current: StepSession | null) => StepSession,
): Promise<StepSession> {
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'session.lock');
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      if (lockIsStale(lock)) rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw new ConfigError(`${lock}: the session has been locked for ${LOCK_WAIT_MS / 1000}s`, {
          hint: 'another massgen step is writing it; if none runs, delete the lock file',
        });
      else await sleep(20);
    }
  }
  try {
    const next = change(readStepSession(dir));
    const file = sessionFile(dir);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`);
    renameSync(temporary, file);
    return next;
  } finally {
    rmSync(lock, { force: true });
  }
}

/** True when `dir` holds a session. */
export const hasStepSession = (dir: string): boolean => existsSync(sessionFile(dir));
