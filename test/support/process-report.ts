/**
 * What a process tree is doing, for the message of a wait that timed out: a test that waits for a CLI
 * in a terminal says not only what it waited for but where the CLI was — each thread's state and kernel
 * wait channel (and kernel stack, where readable), and for a Node process started with
 * `--report-on-signal`, the JavaScript stack and the event loop's handles from a diagnostic report.
 */
import fs from 'node:fs';
import path from 'node:path';

const read = (file: string): string => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** The children of every process, from /proc (Linux only; empty elsewhere). */
function childrenOf(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return children;
  }
  for (const entry of entries) {
    // The command name is in parentheses and may hold spaces: the fields after its last ')'.
    const stat = read(`/proc/${entry}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isFinite(ppid)) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  return children;
}

/** `root` and everything below it. */
export function processTree(root: number): number[] {
  const children = childrenOf();
  const out: number[] = [];
  const visit = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return out;
}

function threadLines(pid: number): string[] {
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.map((tid) => {
    const stat = read(`/proc/${pid}/task/${tid}/stat`);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
    const comm = read(`/proc/${pid}/task/${tid}/comm`).trim();
    const wchan = read(`/proc/${pid}/task/${tid}/wchan`).trim() || '-';
    return `    thread ${tid} ${comm} state=${state} wchan=${wchan}`;
  });
}

/** Asks a Node process for a diagnostic report (it must run with `--report-on-signal`). */
async function nodeReport(pid: number, reportDir: string, waitMs: number): Promise<string> {
  const before = new Set(fs.existsSync(reportDir) ? fs.readdirSync(reportDir) : []);
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return '';
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    const fresh = (fs.existsSync(reportDir) ? fs.readdirSync(reportDir) : []).filter(
      (f) => !before.has(f) && f.endsWith('.json') && f.includes(`.${pid}.`),
    );
    for (const file of fresh) {
      try {
        const report = JSON.parse(fs.readFileSync(path.join(reportDir, file), 'utf8')) as {
          javascriptStack?: { message?: string; stack?: string[] };
          libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; remaining?: number }[];
        };
        const stack = (report.javascriptStack?.stack ?? []).slice(0, 15).map((l) => `      ${l.trim()}`);
        const handles = (report.libuv ?? [])
          .filter((h) => h.is_active)
          .map((h) => `${h.type}${h.remaining === undefined ? '' : `(${h.remaining}ms)`}`);
        return [
          `    report ${file}: ${report.javascriptStack?.message ?? ''}`,
          ...stack,
          `    active handles: ${handles.join(', ') || 'none'}`,
        ].join('\n');
      } catch {
        // Still being written: try again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return '    (no diagnostic report: the event loop did not answer SIGUSR2 — blocked, or no --report-on-signal)';
}

/**
 * Describes `root` and its descendants. Node processes are asked for a diagnostic report into
 * `reportDir` when given (they must run with `--report-on-signal --report-directory=reportDir`).
 */
export async function describeProcesses(root: number, reportDir?: string): Promise<string> {
  const lines: string[] = [];
  for (const pid of processTree(root)) {
    const cmdline = read(`/proc/${pid}/cmdline`).split('\0').join(' ').trim();
    if (!cmdline) continue;
    lines.push(`  pid ${pid}: ${cmdline.slice(0, 160)}`);
    lines.push(...threadLines(pid));
    const stack = read(`/proc/${pid}/stack`).trim();
    if (stack) lines.push(...stack.split('\n').map((l) => `    kstack ${l}`));
    if (reportDir && /\bnode\b/.test(path.basename(cmdline.split(' ')[0] ?? ''))) {
      lines.push(await nodeReport(pid, reportDir, 10_000));
    }
  }
  return lines.join('\n');
}
