import type { RunEvent } from '../../src/types/events.js';

/** The server's API, as the page uses it. Every call throws an `ApiError` with the server's message. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  // The server takes state changes only as JSON (a page elsewhere cannot send that without asking
  // first), so every POST carries a JSON body, if only `{}`. The token travels in the HttpOnly cookie.
  const changes = method !== 'GET';
  const response = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: changes ? { 'Content-Type': 'application/json' } : {},
    ...(changes ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new ApiError(String(data['error'] ?? response.statusText), response.status, data);
  return data as T;
}

export interface ConfigChoice {
  ref: string;
  label: string;
  source: 'flag' | 'project' | 'example';
  /** False when the keys it needs are not set (older servers leave it out: taken as runnable). */
  runnable?: boolean;
  /** What it lacks to run, e.g. `OPENAI_API_KEY`. */
  missing?: string[];
}
/** One reason a run could not start, with how to fix it. */
export interface StartProblem {
  agentId?: string;
  key?: string;
  message: string;
  hint?: string;
}
/** The problems of a refused start, from an `ApiError`'s body (null when it has none). */
export function startProblems(error: unknown): StartProblem[] | null {
  if (!(error instanceof ApiError)) return null;
  const problems = error.body['problems'];
  return Array.isArray(problems) && problems.length > 0 ? (problems as StartProblem[]) : null;
}
export interface Diagnostic {
  path: string;
  message: string;
  line?: number;
  column?: number;
}
export interface ValidationReport {
  file: string;
  valid: boolean;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** The same lines `massgen --validate` prints. */
  errorLines: string[];
  warningLines: string[];
}
export interface LiveRun {
  id: string;
  kind: 'live';
  question: string;
  config: string;
  sessionKey: string;
  done: boolean;
  error: string | null;
}
export interface PastRun {
  id: string;
  question: string;
  status: string | null;
  startedAt: string | null;
  winner: string | null;
}
export interface PastSession {
  id: string;
  firstQuestion: string | null;
  turnCount: number;
  updatedAt: string;
}
export interface FileEntry {
  path: string;
  kind: 'file' | 'folder';
  size: number;
}
export type FilePreview =
  | { kind: 'text'; path: string; size: number; content: string }
  | { kind: 'binary'; path: string; size: number }
  | { kind: 'too_large'; path: string; size: number; limit: number };

export const api = {
  configs: () => call<ConfigChoice[]>('GET', '/api/configs'),
  validate: (config: string) => call<ValidationReport>('POST', '/api/validate', { config }),
  runs: () => call<{ live: LiveRun[]; past: PastRun[]; sessions: PastSession[] }>('GET', '/api/runs'),
  start: (question: string, config: string, followUpOf?: string) =>
    call<LiveRun>('POST', '/api/runs', { question, config, ...(followUpOf ? { followUpOf } : {}) }),
  /** The next turn of a saved session (its earlier turns are the agents' history). */
  continueSession: (session: string, question: string) =>
    call<LiveRun>('POST', '/api/runs', { question, session }),
  run: (id: string) =>
    call<{
      id: string;
      kind: 'live' | 'past';
      done: boolean;
      events: RunEvent[];
      error?: string | null;
      question?: string;
    }>('GET', `/api/runs/${encodeURIComponent(id)}`),
  cancel: (id: string) => call<{ ok: true }>('POST', `/api/runs/${encodeURIComponent(id)}/cancel`),
  /** A steering message to every agent, or to `agentId` only; `seq` is its `human.message` event's. */
  message: (id: string, text: string, agentId: string | null) =>
    call<{ seq?: number }>('POST', `/api/runs/${encodeURIComponent(id)}/messages`, {
      text,
      ...(agentId ? { agentId } : {}),
    }),
  /** Stops coordination and has the best answer so far presented. */
  answerNow: (id: string) => call<unknown>('POST', `/api/runs/${encodeURIComponent(id)}/answer-now`),
  approve: (id: string, agentId: string, callId: string, approved: boolean) =>
    call<{ ok: true }>('POST', `/api/runs/${encodeURIComponent(id)}/approvals`, {
      agentId,
      callId,
      approved,
    }),
  roots: (id: string) =>
    call<{ name: string; label: string }[]>('GET', `/api/runs/${encodeURIComponent(id)}/roots`),
  tree: (id: string, root: string) =>
    call<FileEntry[]>('GET', `/api/runs/${encodeURIComponent(id)}/tree?root=${encodeURIComponent(root)}`),
  file: (id: string, root: string, path: string) =>
    call<FilePreview>(
      'GET',
      `/api/runs/${encodeURIComponent(id)}/file?root=${encodeURIComponent(root)}&path=${encodeURIComponent(path)}`,
    ),
  /** The file itself with its own content type, to show in the page (images, PDF, sandboxed HTML). */
  rawUrl: (id: string, root: string, path: string) =>
    `/api/runs/${encodeURIComponent(id)}/raw?root=${encodeURIComponent(root)}&path=${encodeURIComponent(path)}`,
  downloadUrl: (id: string, root: string, path: string) =>
    `/api/runs/${encodeURIComponent(id)}/download?root=${encodeURIComponent(root)}&path=${encodeURIComponent(path)}`,
};

/**
 * Follows a live run over the WebSocket. A dropped socket reconnects (with backoff) and asks for the
 * events after the last one it saw, so nothing is missed and nothing arrives twice.
 */
export function followRun(
  runId: string,
  handlers: {
    onEvent: (event: RunEvent) => void;
    onDone: () => void;
    onStatus: (connected: boolean) => void;
  },
): { close: () => void } {
  let lastSeq = -1;
  let closed = false;
  let socket: WebSocket | null = null;
  let retry = 0;
  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(
      `${scheme}://${location.host}/ws?run=${encodeURIComponent(runId)}&after=${lastSeq}`,
    );
    socket.onopen = () => {
      retry = 0;
      handlers.onStatus(true);
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as
        { type: 'event'; event: RunEvent } | { type: 'done' } | { type: 'error'; message: string };
      if (data.type === 'event' && data.event.seq > lastSeq) {
        lastSeq = data.event.seq;
        handlers.onEvent(data.event);
      } else if (data.type === 'done') {
        closed = true;
        handlers.onDone();
        socket?.close();
      }
    };
    socket.onclose = () => {
      handlers.onStatus(false);
      if (closed) return;
      retry++;
      setTimeout(connect, Math.min(5_000, 200 * 2 ** retry));
    };
  };
  connect();
  return {
    close: () => {
      closed = true;
      socket?.close();
    },
  };
}
