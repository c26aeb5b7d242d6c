import type { RunEvent } from '../../src/types/events.js';
import type {
  AnswerNowRequest,
  QuestionAnswerRequest,
  ApprovalRequest,
  ConfigsResponse,
  FileEntry,
  FilePreview,
  LiveRun,
  OkResponse,
  ReviewRequest,
  RootsResponse,
  RunDetailResponse,
  RunsResponse,
  StartRunRequest,
  SteeringMessageRequest,
  SteeringResponse,
  UploadedFile,
  ValidateRequest,
  WebStartProblem,
  WebValidationReport,
} from '../../src/types/web-api.js';

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

/** Wire types, shared with the server (`src/types/web-api.ts`), under the names the page uses. */
export type {
  WebConfigChoice as ConfigChoice,
  WebStartProblem as StartProblem,
  WebDiagnostic as Diagnostic,
  WebValidationReport as ValidationReport,
  LiveRun,
  PastRun,
  PastSession,
  FileEntry,
  FilePreview,
} from '../../src/types/web-api.js';

/** The problems of a refused start, from an `ApiError`'s body (null when it has none). */
export function startProblems(error: unknown): WebStartProblem[] | null {
  if (!(error instanceof ApiError)) return null;
  const problems = error.body['problems'];
  return Array.isArray(problems) && problems.length > 0 ? (problems as WebStartProblem[]) : null;
}

export const api = {
  configs: () => call<ConfigsResponse>('GET', '/api/configs'),
  validate: (config: string) =>
    call<WebValidationReport>('POST', '/api/validate', { config } satisfies ValidateRequest),
  runs: () => call<RunsResponse>('GET', '/api/runs'),
  start: (question: string, config: string, followUpOf?: string, attachments: UploadedFile[] = []) =>
    call<LiveRun>('POST', '/api/runs', {
      question,
      config,
      ...(followUpOf ? { followUpOf } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    } satisfies StartRunRequest),
  /** The next turn of a saved session (its earlier turns are the agents' history). */
  continueSession: (session: string, question: string) =>
    call<LiveRun>('POST', '/api/runs', { question, session } satisfies StartRunRequest),
  run: (id: string) => call<RunDetailResponse>('GET', `/api/runs/${encodeURIComponent(id)}`),
  cancel: (id: string) => call<OkResponse>('POST', `/api/runs/${encodeURIComponent(id)}/cancel`),
  /** A steering message to every agent, or to `agentId` only; `seq` is its `human.message` event's. */
  message: (id: string, text: string, agentId: string | null) =>
    call<SteeringResponse>('POST', `/api/runs/${encodeURIComponent(id)}/messages`, {
      text,
      ...(agentId ? { agentId } : {}),
    } satisfies SteeringMessageRequest),
  /** The human's answer to an agent's `ask_others` question. */
  answerQuestion: (id: string, questionId: string, text: string) =>
    call<SteeringResponse>(
      'POST',
      `/api/runs/${encodeURIComponent(id)}/questions/${encodeURIComponent(questionId)}`,
      { text } satisfies QuestionAnswerRequest,
    ),
  /** Stops coordination and has the best answer so far presented. */
  answerNow: (id: string) =>
    call<SteeringResponse>(
      'POST',
      `/api/runs/${encodeURIComponent(id)}/answer-now`,
      {} satisfies AnswerNowRequest,
    ),
  approve: (id: string, agentId: string, callId: string, approved: boolean) =>
    call<OkResponse>('POST', `/api/runs/${encodeURIComponent(id)}/approvals`, {
      agentId,
      callId,
      approved,
    } satisfies ApprovalRequest),
  /** Which of the winner's changed files to apply (the review panel). */
  review: (id: string, reviewId: string, apply: 'all' | 'none' | string[]) =>
    call<OkResponse>('POST', `/api/runs/${encodeURIComponent(id)}/review`, {
      reviewId,
      apply,
    } satisfies ReviewRequest),
  roots: (id: string) => call<RootsResponse>('GET', `/api/runs/${encodeURIComponent(id)}/roots`),
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
