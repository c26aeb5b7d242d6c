import { createInterface } from 'node:readline';
import type { PreparedRun } from '../app/index.js';
import { routeApprovalEvent } from '../app/route-approval-event.js';
import type { RunEvent, RunEventOf } from '../types/events.js';
import { oneLine, truncate } from '../util/text.js';
import { inertText } from '../util/terminal-text.js';
import type { Write } from '../app/plain-display.js';

/** Why every request is denied when nobody can answer (also given to the model with the denial). */
export const NO_APPROVER_REASON =
  'no one can approve tool calls here (auto_approve is false and there is no terminal); set orchestrator.auto_approve: true';

/** The reason given to the model when the user answers no. */
export const USER_DENIED_REASON = 'denied by the user';

/** Answers held tool calls: reacts to `tool.approval.requested` (and to what makes a request stale). */
export interface ApprovalPrompt {
  handle(event: RunEvent): void;
  /** Stops asking (the run is over): closes an open question and forgets the queue. Idempotent. */
  close(): void;
}

type Input = NodeJS.ReadableStream & { isTTY?: boolean; ref?: () => unknown };
type Output = NodeJS.WritableStream & { isTTY?: boolean };

export interface ApprovalPromptOptions {
  /**
   * Where to ask. Questions are asked only when `input` is a TTY (streams are injected in tests);
   * without a terminal every request is denied at once.
   */
  terminal?: { input: Input; output: Output } | undefined;
  /** `--automation`: never ask, deny at once. */
  automation?: boolean;
  /** Where the one warning goes when requests are denied for want of a terminal; omitted: no warning. */
  warn?: Write;
  /**
   * Ctrl-C typed at a question (a terminal readline reads it as a key, not a signal): the caller
   * cancels the run. Without it Ctrl-C denies the call.
   */
  onInterrupt?: () => void;
}

type Request = RunEventOf<'tool.approval.requested'>;

const same = (a: { agentId: string; callId: string }, b: { agentId: string; callId: string }) =>
  a.agentId === b.agentId && a.callId === b.callId;

/**
 * `Allow gpt to run write_file {"path":"a.txt"}? [y/N] ` — the tool name and arguments come from the
 * model, so the question is made inert (JSON escapes C0 controls, not C1 or bidi ones).
 */
export function approvalQuestion(
  request: Pick<Request, 'agentId' | 'toolName' | 'arguments'> & { rule?: Request['rule'] },
): string {
  let args: string;
  try {
    args = JSON.stringify(request.arguments) ?? '';
  } catch {
    args = String(request.arguments);
  }
  const rule = request.rule ? ` (${request.rule.label}: ${request.rule.text})` : '';
  return inertText(
    `Allow ${request.agentId} to run ${request.toolName} ${truncate(oneLine(inertText(args)), 100)}${rule}? [y/N] `,
  );
}

/**
 * The approver of the plain views (`--no-display`, `--debug`, `--automation`, no live terminal) when
 * `orchestrator.auto_approve` is false. On a terminal it asks about each held call in turn
 * (`Allow <agent> to run <tool> <args>? [y/N] `; only `y`/`yes` approves), queueing the requests that
 * arrive meanwhile. Without a terminal, or with `--automation`, nobody could answer: each request is
 * denied at once with {@link NO_APPROVER_REASON}, and one warning is written the first time.
 * A readline is open only while a question is: between questions the terminal is left alone.
 */
export function createApprovalPrompt(
  run: Pick<PreparedRun, 'respondToApproval'>,
  options: ApprovalPromptOptions,
): ApprovalPrompt {
  const terminal = options.terminal;
  const canAsk = () => !options.automation && terminal?.input.isTTY === true && !inputEnded;
  const queue: Request[] = [];
  let current: { request: Request; abandon: () => void } | null = null;
  let inputEnded = false;
  let warned = false;
  let closed = false;

  const deny = (request: Request, reason: string, by: 'terminal' | 'none') =>
    run.respondToApproval(request.agentId, request.callId, { approved: false, reason, by });

  const denyUnanswerable = (request: Request) => {
    if (!warned && options.warn) options.warn(`massgen: warning: tool call denied: ${NO_APPROVER_REASON}\n`);
    warned = true;
    deny(request, NO_APPROVER_REASON, 'none');
  };

  const next = () => {
    if (closed || current !== null) return;
    const request = queue.shift();
    if (!request) return;
    if (!canAsk() || !terminal) {
      denyUnanswerable(request);
      next();
      return;
    }
    ask(request, terminal);
  };

  const ask = (request: Request, { input, output }: NonNullable<ApprovalPromptOptions['terminal']>) => {
    input.ref?.(); // a view may have unref'd it
    // Keys typed while no question was open must not answer this one: drop what is buffered.
    while (input.read() !== null) {
      // discard
    }
    const rl = createInterface({ input, output, terminal: input.isTTY === true && output.isTTY === true });
    /** Set once the question is over (answered, abandoned, interrupted): `close` then means nothing. */
    let settled = false;
    const finish = () => {
      settled = true;
      current = null;
      rl.close();
    };
    current = { request, abandon: finish };
    rl.on('SIGINT', () => {
      if (settled) return;
      finish();
      output.write('\n');
      if (options.onInterrupt) options.onInterrupt();
      else deny(request, USER_DENIED_REASON, 'terminal');
      next();
    });
    rl.on('close', () => {
      if (settled) return;
      // The input ended (Ctrl-D, a closed pipe): nobody can answer any more.
      settled = true;
      current = null;
      inputEnded = true;
      output.write('\n');
      denyUnanswerable(request);
      next();
    });
    rl.question(approvalQuestion(request), (answer) => {
      if (settled) return;
      finish();
      const approved = /^\s*y(es)?\s*$/i.test(answer);
      run.respondToApproval(
        request.agentId,
        request.callId,
        approved
          ? { approved: true, by: 'terminal' }
          : { approved: false, reason: USER_DENIED_REASON, by: 'terminal' },
      );
      next();
    });
  };

  /** Forgets the requests `stale` picks (answered elsewhere, or their turn ended), asked or queued. */
  const drop = (stale: (request: Request) => boolean) => {
    for (let i = queue.length - 1; i >= 0; i--) {
      const request = queue[i];
      if (request && stale(request)) queue.splice(i, 1);
    }
    if (current && stale(current.request)) {
      const { abandon } = current;
      abandon();
      terminal?.output.write('\n');
      next();
    }
  };

  const close = () => {
    if (closed) return;
    closed = true;
    queue.length = 0;
    if (current) {
      const { abandon } = current;
      abandon();
      terminal?.output.write('\n');
    }
  };

  return {
    handle(event) {
      if (closed) return;
      routeApprovalEvent(event, {
        requested: (requested) => {
          if (!canAsk()) {
            denyUnanswerable(requested);
            return;
          }
          queue.push(requested);
          next();
        },
        resolved: (resolved) => drop((request) => same(request, resolved)),
        // A held call is abandoned when its agent's turn or presentation ends.
        agentEnded: (agentId) => drop((request) => request.agentId === agentId),
        runFinished: close,
      });
    },
    close,
  };
}
