import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunEvent } from '../types/events.js';
import type { SteeringMessage, SteerResult } from '../types/steering-events.js';

/**
 * `--inbox-dir DIR`: steering a run that has no keyboard (docs/protocol.md "Steering"). Every file
 * dropped into DIR becomes a message from the user to the agents; it is then moved to `DIR/delivered/`
 * (accepted by the run) or `DIR/rejected/` (with `<name>.reason.txt` saying why).
 *
 * A file's text is the message. When its first line is `@<agent>` (an agent's id from the config, or
 * its anonymous id such as `agent2`), the rest is for that agent only. Names starting with `.` and
 * ending in `.tmp`, `.part` or `~` are left alone, so a writer can create the file under such a name
 * and rename it when complete. Files that arrive before the run has started wait for it; files still
 * there when it ends stay where they are.
 */

/** How often DIR is looked at. Cheap: one directory listing. */
const POLL_MS = 250;
/** Larger files are refused without being read whole. */
const MAX_FILE_BYTES = 64 * 1024;

export interface InboxOptions {
  /** The run's `steer` (e.g. `prepared.steer`). */
  steer: (message: SteeringMessage) => SteerResult;
  /** Told about each file the run refused (the reason is also in `DIR/rejected/<name>.reason.txt`). */
  onRejected?: (file: string, reason: string) => void;
  pollMs?: number;
}

export interface Inbox {
  /** Feed the run's events: the agents' anonymous ids come from `run.started`. */
  handle(event: RunEvent): void;
  /** Looks at DIR once now (also done every `pollMs`). */
  check(): Promise<void>;
  /** Stops watching, after a last look while the run still takes messages. */
  stop(): Promise<void>;
}

const skipped = (name: string) => name.startsWith('.') || /(\.tmp|\.part|~)$/i.test(name);

/** Starts watching `dir` (created if missing, with its `delivered/` and `rejected/` folders). */
export async function watchInbox(dir: string, options: InboxOptions): Promise<Inbox> {
  const delivered = path.join(dir, 'delivered');
  const rejected = path.join(dir, 'rejected');
  await mkdir(delivered, { recursive: true });
  await mkdir(rejected, { recursive: true });
  const anonymous = new Map<string, string>();
  const ids = new Set<string>();
  let running: Promise<void> | null = null;
  let stopped = false;

  const moveTo = async (folder: string, name: string): Promise<string> => {
    const ext = path.extname(name);
    const base = name.slice(0, name.length - ext.length);
    for (let n = 0; ; n++) {
      const target = path.join(folder, n === 0 ? name : `${base}-${n}${ext}`);
      const exists = await stat(target).then(
        () => true,
        () => false,
      );
      if (exists) continue;
      await rename(path.join(dir, name), target);
      return target;
    }
  };

  const reject = async (name: string, reason: string) => {
    const moved = await moveTo(rejected, name);
    await writeFile(`${moved}.reason.txt`, `${reason}\n`);
    options.onRejected?.(name, reason);
  };

  const take = async (name: string): Promise<void> => {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) return;
    if (info.size > MAX_FILE_BYTES) return reject(name, `the file is larger than ${MAX_FILE_BYTES} bytes`);
    let text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
    let agentId: string | undefined;
    const target = /^@(\S+)[ \t]*(?:\r?\n|$)/.exec(text);
    if (target) {
      const named = target[1] ?? '';
      agentId = ids.has(named) ? named : (anonymous.get(named) ?? named);
      text = text.slice(target[0].length);
    }
    const result = options.steer({ text, source: 'inbox', ...(agentId === undefined ? {} : { agentId }) });
    if (result.accepted) {
      await moveTo(delivered, name);
      return;
    }
    // Not started yet: the file waits. Finished: it stays for whoever looks next.
    if (result.reason === 'not_running') return;
    await reject(name, result.message);
  };

  const check = (): Promise<void> =>
    (running ??= (async () => {
      try {
        const names = (await readdir(dir, { withFileTypes: true }))
          .filter((e) => e.isFile() && !skipped(e.name))
          .map((e) => e.name)
          .sort();
        for (const name of names) await take(name).catch(() => undefined);
      } catch {
        // The folder went away: nothing to take.
      } finally {
        running = null;
      }
    })());

  const timer = setInterval(() => {
    if (!stopped) void check();
  }, options.pollMs ?? POLL_MS);
  timer.unref();

  return {
    handle(event) {
      if (event.type === 'run.started') {
        for (const agent of event.agents) {
          ids.add(agent.agentId);
          anonymous.set(agent.anonymousId, agent.agentId);
        }
        void check();
      }
    },
    check,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
