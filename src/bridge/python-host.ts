import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { JsonSchema } from '../types/messages.js';
import { trackChildProcess } from '../util/child-reaper.js';
import { packagePath } from '../util/package-root.js';

/**
 * The bridge to Python: one `python3` process per run (`python/massgen_tool_host.py`, standard library
 * only, shipped in the package) that loads Python modules and calls their functions, spoken to in JSON
 * lines over stdio. Custom tools use it, and so do Python agents (AG2 and the other Python frameworks,
 * through `PythonAgent`).
 */

/** Where the host script lives: `python/` at the package root, beside `dist/` and `src/`. */
export const PYTHON_HOST_SCRIPT = packagePath('python', 'massgen_tool_host.py');

/** A Python function as the host describes it: its schema from the signature and docstring. */
export interface PythonFunctionDescription {
  function: string;
  description: string;
  parameters: JsonSchema;
}

/** A failure inside Python (an exception in the tool, a module that does not load). */
export class PythonError extends Error {
  constructor(
    message: string,
    readonly trace: string | undefined,
    /** A machine-readable kind, e.g. `missing_package` when a framework is not installed. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'PythonError';
  }
}

/** The host stopped and could not be brought back. */
export class PythonHostStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PythonHostStoppedError';
  }
}

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/** Options of {@link PythonHost}. */
export interface PythonHostOptions {
  /** The interpreter (default `python3`, from PATH). */
  python?: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** How many times a host that died is started again (default 1). */
  restarts?: number;
  /** What the host is called in errors (default "the Python tool host"). */
  label?: string;
  /** What stops working when the host is gone for good (default "its tools are off …"). */
  stoppedNote?: string;
  /** A command the interpreter runs under, e.g. bubblewrap's arguments ending in `--`. */
  prefix?: readonly string[];
}

const STDERR_KEPT = 4_000;

/**
 * One Python host process, started on first use. A host that dies is started again once (modules load
 * again on demand); after that every request fails at once with {@link PythonHostStoppedError}.
 */
export class PythonHost {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private restartsLeft: number;
  private stopped: string | null = null;
  private closing = false;
  private stderr = '';
  private killed: ChildProcess | null = null;
  private started = 0;

  constructor(private readonly options: PythonHostOptions) {
    this.restartsLeft = options.restarts ?? 1;
  }

  /** The interpreter this host runs. */
  get python(): string {
    return this.options.python ?? 'python3';
  }

  /** How many processes this host has started so far (a new one has loaded nothing). */
  get generation(): number {
    return this.started;
  }

  /** Whether a process is up now. */
  get running(): boolean {
    return this.child !== null;
  }

  /**
   * Ends the process now, e.g. under a request that hangs; the next request starts a fresh one. Unlike a
   * crash this uses up no restart.
   */
  kill(): void {
    if (!this.child) return;
    this.killed = this.child;
    this.child.kill('SIGKILL');
    this.child = null;
  }

  /** Describes `functions` of the module at `path` (imported now, so a broken module fails here). */
  async load(path: string, functions: readonly string[]): Promise<PythonFunctionDescription[]> {
    const reply = await this.request({ op: 'load', path, functions });
    return reply.tools as PythonFunctionDescription[];
  }

  /** Calls a function; resolves with the text the model reads. `signal` abandons the call. */
  async call(path: string, fn: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const reply = await this.request({ op: 'call', path, function: fn, arguments: args }, signal);
    return String(reply.text ?? '');
  }

  /** Stops the host (at the end of the run). */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Sends one request (`op` and its fields, see the host script) and resolves with the reply. `signal`
   * abandons it (the host is asked to cancel it).
   */
  request(body: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.stopped !== null) return Promise.reject(new PythonHostStoppedError(this.stopped));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    const child = this.ensureStarted();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.settle(id);
        child.stdin?.write(`${JSON.stringify({ op: 'cancel', target: id })}\n`);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.hold(child, true);
      child.stdin?.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  /** Keeps the event loop alive exactly while requests are in flight. */
  private hold(child: ChildProcess, active: boolean): void {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as ({
      ref?: () => void;
      unref?: () => void;
    } | null)[])
      if (active) handle?.ref?.();
      else handle?.unref?.();
  }

  /** Forgets a request; lets the process go idle when it was the last. */
  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0 && this.child) this.hold(this.child, false);
    return pending;
  }

  private ensureStarted(): ChildProcess {
    if (this.child) return this.child;
    const argv = [...(this.options.prefix ?? []), this.python, '-u', PYTHON_HOST_SCRIPT];
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: this.options.cwd,
      env: { ...this.options.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.started++;
    this.stderr = '';
    // An idle host must not keep the process alive (a prepared run that is never streamed, an exit);
    // a host with requests in flight must (see hold).
    this.hold(child, this.pending.size > 0);
    const untrack = child.pid === undefined ? () => {} : trackChildProcess(child.pid);
    child.stdin?.on('error', () => {});
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEPT);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => this.onLine(child, line));
    const died = (why: string) => {
      untrack();
      if (this.child === child) this.child = null;
      if (this.closing) return;
      // A process we killed had its requests abandoned already; what is pending now is its successor's.
      if (this.killed === child) {
        this.killed = null;
        return;
      }
      const tail = this.stderr.trim().split('\n').slice(-5).join(' | ');
      const label = this.options.label ?? 'the Python tool host';
      const message = `${label} (${this.python}) ${why}${tail ? `: ${tail}` : ''}`;
      if (this.restartsLeft > 0) this.restartsLeft--;
      else
        this.stopped = `${message}; ${this.options.stoppedNote ?? 'its tools are off for the rest of this run'}`;
      for (const [id, pending] of this.pending) {
        this.settle(id);
        pending.reject(new PythonHostStoppedError(message));
      }
    };
    child.once('error', (error) => died(`could not start (${error.message})`));
    child.once('exit', (code, signal) => died(`stopped (${signal ?? `exit code ${code}`})`));
    return child;
  }

  private onLine(child: ChildProcess, line: string): void {
    let message: { id?: number; ok?: boolean; error?: string; trace?: string; code?: string } & Record<
      string,
      unknown
    >;
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      // The host keeps the protocol on a private descriptor, so this is a broken host: end it (its
      // requests fail as a stopped host's do) rather than guess where the next reply starts.
      this.stderr = `${this.stderr}\nwrote something that is not the protocol: ${line.slice(0, 120)}`;
      child.kill('SIGKILL');
      return;
    }
    const pending = typeof message.id === 'number' ? this.settle(message.id) : undefined;
    if (!pending) return;
    if (message.ok) pending.resolve(message);
    else
      pending.reject(new PythonError(message.error ?? 'unknown Python error', message.trace, message.code));
  }
}
