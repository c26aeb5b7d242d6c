/**
 * Helpers for end-to-end tests that run the BUILT CLI (`node bin/massgen.js`) as a child process.
 * `npm test` builds first (`pretest`); when running vitest by hand, run `npm run build` before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  startFakeOpenAIServer,
  type FakeChatRequestBody,
  type FakeOpenAIServer,
  type FakeResponse,
} from '../../src/testing/fake-openai-server.js';
import type { RunEvent } from '../../src/types/events.js';
import { tail, waitUntil, type WaitOptions } from '../support/wait.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = path.join(REPO_ROOT, 'bin', 'massgen.js');

/** Matches a log folder name: `log_YYYYMMDD_HHMMSS_ffffff` (optionally `_2`, `_3`… on collisions). */
export const LOG_DIR_NAME = /^log_\d{8}_\d{6}_\d{6}(?:_\d+)?$/;

export interface CliResult {
  /** Exit code, or null when the child was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** True when the harness had to kill the child because it outlived `timeoutMs`. */
  timedOut: boolean;
}

export interface CliOptions {
  /** The child's working directory (a fresh temp folder per test). */
  cwd: string;
  /** Extra variables on top of {@link cleanEnv}'s PATH and HOME. The parent's env is never inherited. */
  env?: Record<string, string>;
  /** Kill the child (SIGKILL) after this long; default {@link CLI_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * Written to the child's stdin, which is then closed (default: no stdin); `'open'` leaves it a pipe
   * the test writes to (`child.stdin`), as a user at a prompt would.
   */
  stdin?: string | 'open';
  /** Run the CLI as this user (through util-linux `setpriv`; the tests must run as root). */
  user?: { uid: number; gid: number };
  /** A command the CLI runs under, e.g. `['unshare', '-Urm', …]` (after `user`'s setpriv). */
  prefix?: readonly string[];
  /** Options for node itself, before the CLI's script (e.g. V8 flags). */
  nodeFlags?: readonly string[];
}

/**
 * How long a CLI may run before the harness kills it: a safety net for a hung child, far above what a
 * run takes on a busy machine, and below vitest's testTimeout so the test fails with the CLI's output.
 */
export const CLI_TIMEOUT_MS = 120_000;

export interface RunningCli {
  child: ChildProcess;
  /** Output captured so far. */
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves when the child has exited (never rejects). */
  result: Promise<CliResult>;
  /**
   * Waits until `pattern` shows in stdout (or `stream`) and returns its match. Fails at once when the
   * CLI exits first, and at the budget otherwise, with the output so far.
   */
  output(
    pattern: RegExp,
    what: string,
    options?: WaitOptions & { stream?: 'stdout' | 'stderr' },
  ): Promise<RegExpExecArray>;
  /** {@link waitUntil} while this CLI runs: fails at once when it exits first, and shows its output. */
  until(condition: () => boolean | Promise<boolean>, what: string, options?: WaitOptions): Promise<void>;
}

/**
 * A child environment built from scratch: PATH (to find node's helpers) and HOME (the temp folder, so
 * nothing from the real home leaks in), plus what the test asks for. No API keys are ever inherited.
 */
export function cleanEnv(cwd: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...extra };
}

/** Starts the built CLI and captures its output; the caller may signal `child` while it runs. */
export function startCli(args: readonly string[], options: CliOptions): RunningCli {
  const started = Date.now();
  const as = options.user
    ? ['setpriv', `--reuid=${options.user.uid}`, `--regid=${options.user.gid}`, '--clear-groups', '--']
    : [];
  const command = [...as, ...(options.prefix ?? []), process.execPath, ...(options.nodeFlags ?? [])];
  const [program, ...prefix] = command;
  const child = spawn(program!, [...prefix, CLI_BIN, ...args], {
    cwd: options.cwd,
    env: cleanEnv(options.cwd, options.env),
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined && options.stdin !== 'open') child.stdin?.end(options.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timeoutMs = options.timeoutMs ?? CLI_TIMEOUT_MS;
  const timer = setTimeout(() => {
    timedOut = true;
    // Said where a failing assertion on the output shows it: the exit code alone does not say why.
    stderr += `\n[cli-harness] killed with SIGKILL: still running after ${timeoutMs} ms (timeoutMs)\n`;
    child.kill('SIGKILL');
  }, timeoutMs);
  const result = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({
        code: null,
        signal: null,
        stdout,
        stderr: `${stderr}\nspawn error: ${error.message}`,
        durationMs: Date.now() - started,
        timedOut,
      });
    });
  });
  const seen = () => `stdout:\n${tail(stdout)}\nstderr:\n${tail(stderr)}`;
  const exited = result.then((r) => `the CLI exited first (code ${r.code}, signal ${r.signal})`);
  const until: RunningCli['until'] = (condition, what, waitOptions = {}) =>
    waitUntil(condition, what, { seen, stop: exited, ...waitOptions });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    result,
    until,
    async output(pattern, what, { stream = 'stdout', ...waitOptions } = {}) {
      const text = () => (stream === 'stdout' ? stdout : stderr);
      await until(() => pattern.test(text()), what, waitOptions);
      return pattern.exec(text()) as RegExpExecArray;
    },
  };
}

/** `massgen --config config.yaml --automation …args` in `cwd`, to its end. */
export function automated(cwd: string, ...args: string[]): Promise<CliResult> {
  return startCli(['--config', 'config.yaml', '--automation', ...args], { cwd, timeoutMs: 90_000 }).result;
}

/** Runs the built CLI to completion. */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).result;
}

// ---------------------------------------------------------------------------------------------------
// Temp folders and configs

const tempDirs: string[] = [];

/** A fresh, empty working directory under the OS temp folder; removed by {@link removeTempDirs}. */
export function makeWorkdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-e2e-'));
  tempDirs.push(dir);
  return dir;
}

/**
 * Removes every folder made by {@link makeWorkdir} (call from afterEach/afterAll). A run cancelled at
 * the end of a test may still be closing its log folder: `maxRetries` rides out that ENOTEMPTY (node
 * waits 50 ms longer before each try: up to ~10 s on a machine under load).
 */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0))
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
}

/** Writes a config (object → YAML, or raw text) into `dir`; returns its file name. */
export function writeConfig(dir: string, config: unknown, name = 'config.yaml'): string {
  const text = typeof config === 'string' ? config : stringify(config);
  fs.writeFileSync(path.join(dir, name), text);
  return name;
}

/** One agent entry of a config pointing at `baseUrl`. */
export function agentEntry(
  id: string,
  baseUrl: string,
  extra: { system_message?: string; backend?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    id,
    backend: { type: 'chatcompletion', model: `model-${id}`, base_url: baseUrl, ...extra.backend },
    ...(extra.system_message === undefined ? {} : { system_message: extra.system_message }),
  };
}

/**
 * A working folder for `massgen batch`: team.yaml (agents alpha and beta on `baseUrl`, no logs) and
 * q.jsonl with `count` questions `Question qN: 6 x 7?` (ids q1…qN).
 */
export function batchWorkdir(baseUrl: string, count: number): string {
  const cwd = makeWorkdir();
  writeConfig(
    cwd,
    {
      agents: ['alpha', 'beta'].map((id) => agentEntry(id, baseUrl, { system_message: persona(id) })),
      ui: { logging_enabled: false },
    },
    'team.yaml',
  );
  const lines = Array.from({ length: count }, (_, i) => ({
    id: `q${i + 1}`,
    question: `Question q${i + 1}: 6 x 7?`,
  }));
  fs.writeFileSync(path.join(cwd, 'q.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return cwd;
}

/** A port nothing listens on: bound, then released. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// Log folders

/** `<cwd>/.massgen/massgen_logs` */
export function logRoot(cwd: string): string {
  return path.join(cwd, '.massgen', 'massgen_logs');
}

/** Absolute paths of the run log folders under `cwd`, sorted. */
export function logDirs(cwd: string): string[] {
  const root = logRoot(cwd);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .sort()
    .map((name) => path.join(root, name));
}

/** The single log folder of a one-run working directory (throws when there is not exactly one). */
export function onlyLogDir(cwd: string): string {
  const dirs = logDirs(cwd);
  if (dirs.length !== 1) throw new Error(`expected exactly one log folder, found ${dirs.length}`);
  return dirs[0] as string;
}

/** Every file under `dir`, as paths relative to it, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel === '' ? entry.name : path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk('');
  return out.sort();
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/** The events of a run's `coordination_events.json`. */
export function readEvents(logDir: string): RunEvent[] {
  return readJson<RunEvent[]>(path.join(logDir, 'coordination_events.json'));
}

/** The subset of `status.json` tests look at. */
export interface StatusJson {
  phase: string;
  agents: Record<string, { status: string; answer_count: number; dropped_reason: string | null }>;
  coordination: { end_reason: string | null; winner: string | null; tallies: Record<string, number> };
  final: {
    status: string | null;
    exit_code: number | null;
    answer_file: string | null;
    error: { code: string; message: string } | null;
  };
}

export function readStatus(logDir: string): StatusJson {
  return readJson<StatusJson>(path.join(logDir, 'status.json'));
}

/** Lines of `text` without the trailing empty one. */
export function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * {@link waitUntil} with the budget first, the form older tests call (a budget under its default is
 * raised to it). New tests call `waitUntil`, or a running CLI's `until`/`output`.
 */
export function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = 'condition',
  seen?: () => string | Promise<string>,
): Promise<void> {
  return waitUntil(predicate, what, { timeoutMs, ...(seen ? { seen } : {}) });
}

// ---------------------------------------------------------------------------------------------------
// Routing fake-model requests

/** The system message every e2e agent gets, so the fake server can tell agents apart. */
export const persona = (id: string): string => `You are the agent called ${id}.`;

/** The text of the request's system message(s). */
export function systemText(body: FakeChatRequestBody): string {
  return (body.messages ?? [])
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/** Which agent sent the request (from {@link persona}), or null. */
export function agentOf(body: FakeChatRequestBody): string | null {
  return /You are the agent called (\S+)\./.exec(systemText(body))?.[1] ?? null;
}

/** Names of the tools offered in the request. */
export function toolNames(body: FakeChatRequestBody): string[] {
  return (body.tools ?? []).map((t) => t.function.name);
}

/** The anonymous ids the `vote` tool lets the agent vote for (empty when `vote` is not offered). */
export function votableIds(body: FakeChatRequestBody): string[] {
  const vote = (body.tools ?? []).find((t) => t.function.name === 'vote');
  const parameters = vote?.function.parameters as
    { properties?: { agent_id?: { enum?: unknown } } } | undefined;
  const ids = parameters?.properties?.agent_id?.enum;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** A single agent that makes `calls` one per step (one tool result more each time), then answers. */
export function scriptedCalls(calls: readonly { name: string; arguments: Record<string, unknown> }[]) {
  return (body: FakeChatRequestBody): FakeResponse => {
    const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
    const call = calls[done];
    return call ? { toolCalls: [call] } : { text: `done after ${done} calls` };
  };
}

/** The final answer {@link convergingHandler}'s winner presents. */
export const finalAnswerOf = (id: string): string => `Final answer from ${id}: 6 x 7 = 42.`;
/** The answer {@link convergingHandler} submits for agent `id`. */
export const answerOf = (id: string): string => `Answer by ${id}: 6 x 7 = 42, because 6 x 7 = 42.`;

/**
 * A fake model for a team whose first agent (anonymous id `agent1`) wins: every request streams some
 * text, then a workflow call streamed in fragments. An agent votes for `agent1` as soon as `agent1` is
 * votable, otherwise submits its own answer; the presentation call (no workflow tools) streams
 * {@link finalAnswerOf}. Whatever order the requests arrive in, the team converges on agent1.
 */
export function convergingHandler(body: FakeChatRequestBody): FakeResponse {
  const id = agentOf(body) ?? 'unknown';
  if (!toolNames(body).includes('new_answer')) return { text: finalAnswerOf(id), chunkSize: 7 };
  if (votableIds(body).includes('agent1')) {
    return {
      text: `${id} reads the answers.\nagent1 is right.`,
      chunkSize: 5,
      toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: `${id}: agent1 is correct` } }],
    };
  }
  return {
    text: `${id} is working on it.\nSubmitting.`,
    chunkSize: 5,
    toolCalls: [{ name: 'new_answer', arguments: { content: answerOf(id) } }],
  };
}

/**
 * Holds every model reply until the returned `open` is called, then answers as
 * {@link convergingHandler}: a test can act on a run mid-flight (signal a worker, interrupt a batch).
 */
export function holdConvergingReplies(server: FakeOpenAIServer): () => void {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  server.setHandler(async (body: FakeChatRequestBody) => {
    await gate;
    return convergingHandler(body);
  });
  return open;
}

/**
 * One fake OpenAI-compatible server for a test file: started before all tests, reset before each,
 * closed after all; temp working dirs are removed after each test.
 */
export function useFakeServer(): { readonly server: FakeOpenAIServer } {
  const holder = {} as { server: FakeOpenAIServer };
  beforeAll(async () => {
    holder.server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await holder.server.close();
  });
  beforeEach(() => holder.server.reset());
  afterEach(() => removeTempDirs());
  return holder;
}
