import { Writable } from 'node:stream';
import type { PreparedRun } from '../app/essentials.js';
import type { RunEvent } from '../types/events.js';
// The live view's entry, not the tui index: its modules and Ink load only when a live view starts.
import { isLiveViewSupported, startLiveViewLazily } from '../tui/live-view-entry.js';
import { createApprovalPrompt, USER_DENIED_REASON, type ApprovalPrompt } from './approval-prompt.js';
import { createAutomationDisplay, printAutomationHeader } from './automation-display.js';
import { createPlainDisplay, type Write } from '../app/plain-display.js';
import { memorySaveAsks } from '../memory/capability.js';
import { holdsToolCalls } from '../app/holds-tool-calls.js';
import { createFileApprovals, createFileReviews, type FileAnswerer } from '../app/file-handshake.js';
import { createReviewPrompt } from './review-prompt.js';
import { inertText, inertWriter } from '../util/terminal-text.js';
import { createHeartbeat } from './heartbeat.js';
import { cutOffReason, cutOffText, initialFinalFinish, reduceFinalFinish } from '../types/final-finish.js';

/** How one run is shown: events in, then `finish()` once the stream has ended. */
export interface RunView {
  handle(event: RunEvent): void;
  finish(): Promise<void>;
  /** True while the full-screen live view owns the terminal (nothing else may write). */
  readonly live: boolean;
  /** Resolves once the view is on screen (the live view loads Ink in the background). */
  readonly ready: Promise<void>;
}

export interface RunViewIo {
  stdout: Write;
  stderr: Write;
  env: Readonly<Record<string, string | undefined>>;
  /** The real terminal streams, for the live view; absent in tests and pipes. */
  terminal?: { stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream };
  /** Asks for the same cancellation as Ctrl-C (the live view owns the keyboard while it runs). */
  requestInterrupt?: () => void;
}

export interface RunViewOptions {
  automation: boolean;
  /** False with --no-display. */
  display: boolean;
  debug: boolean;
  /**
   * `--review` (no value): the winner's changes to isolated context paths wait for a choice — asked on
   * the terminal (the plain view then, since the live view owns the keyboard), else through the file
   * handshake in the log folder.
   */
  review?: boolean;
}

/**
 * Picks the view for a run: `--automation` lines; `silent` → only the final answer; the live
 * terminal UI on a TTY (`rich_terminal`, the default); otherwise plain streaming text. `--debug`
 * adds every event on stderr and keeps the plain view, since the live view owns the screen.
 *
 * With `orchestrator.auto_approve: false` (or an `ask` permission rule) a tool call is held until
 * answered: the live view asks with `y`/`n`; the other views ask on the terminal (`[y/N]`); with no
 * terminal or with `--automation` the call waits for an answer file in the log folder (the file
 * handshake, docs/permissions.md), and without a log folder it is denied at once.
 */
export function createRunView(io: RunViewIo, options: RunViewOptions, prepared: PreparedRun): RunView {
  let ready: Promise<void> = Promise.resolve();
  const handlers: ((event: RunEvent) => void)[] = [];
  let finish = async (): Promise<void> => {};
  let live = false;
  let plain = false;
  // `memory.save: ask` holds saves only in runs where someone can answer (the run refuses them
  // elsewhere), so getting ready to ask for them costs nothing where no question comes.
  const holdsCalls = holdsToolCalls(prepared.config) || memorySaveAsks(prepared.config);
  let approvals: ApprovalPrompt | FileAnswerer | null = null;
  const say = (text: string) => io.stderr(`massgen: ${inertText(text)}\n`);
  const reviewOnTerminal =
    options.review === true && !options.automation && io.terminal?.stdin.isTTY === true;
  const displayType = prepared.config.ui.display_type;
  if (options.automation) {
    printAutomationHeader(io.stdout, prepared);
    handlers.push(createAutomationDisplay(io.stdout));
  } else if (displayType === 'silent' && options.display) {
    handlers.push((event) => {
      if (event.type === 'presentation.finished') io.stdout(`${inertText(event.content)}\n`);
    });
  } else if (
    options.display &&
    !options.debug &&
    !reviewOnTerminal &&
    displayType === 'rich_terminal' &&
    io.terminal &&
    isLiveViewSupported(io.terminal.stdout, io.env)
  ) {
    const view = startLiveViewLazily({
      stdout: io.terminal.stdout,
      stdin: io.terminal.stdin,
      onCancel: () => io.requestInterrupt?.(),
      onApproval: (agentId, callId, approved) =>
        prepared.respondToApproval(
          agentId,
          callId,
          approved
            ? { approved: true, by: 'terminal' }
            : { approved: false, reason: USER_DENIED_REASON, by: 'terminal' },
        ),
      // Steering from the keyboard: `m` writes to the agents, `a` asks for the answer now.
      // While an agent's ask_others question waits for the human, the message answers it instead.
      onMessage: (text, agentId) => {
        const waiting = prepared.pendingQuestions()[0];
        if (waiting) return outcome(prepared.answerQuestion(waiting.questionId, text, 'terminal'));
        return outcome(
          prepared.steer({ text, source: 'terminal', ...(agentId === null ? {} : { agentId }) }),
        );
      },
      onAnswerNow: () => outcome(prepared.answerNow('terminal')),
    });
    live = true;
    ready = view.ready;
    handlers.push((event) => view.handle(event));
    if (holdsCalls && io.terminal.stdin.isTTY !== true) {
      // No keys reach the live view: the answer file, else deny at once (its timeline shows why).
      approvals =
        prepared.logDir !== null
          ? createFileApprovals(prepared, prepared.logDir)
          : createApprovalPrompt(prepared, {});
    }
    finish = async () => {
      await view.finish();
      live = false;
    };
  } else {
    // The plain view adds no styling of its own: everything it writes is made inert. It says so
    // itself when the final answer was cut off.
    plain = true;
    const write = inertWriter(io.stdout);
    const heartbeat = createHeartbeat({ write });
    handlers.push(
      createPlainDisplay(write, { showReasoning: options.debug, onAgentLine: heartbeat.activity }),
      (event) => heartbeat.handle(event),
    );
    const finishPlain = finish;
    finish = async () => {
      heartbeat.close();
      await finishPlain();
    };
  }
  // Without a terminal to ask on, questions wait for an answer file in the log folder.
  const canAsk = !options.automation && io.terminal?.stdin.isTTY === true;
  if (holdsCalls && !live && !canAsk && prepared.logDir !== null)
    approvals = createFileApprovals(prepared, prepared.logDir, say);
  if (holdsCalls && !live && approvals === null) {
    const terminal = io.terminal;
    // Questions go where the user looks: stdout on a terminal, else (stdout redirected) stderr.
    const output = terminal?.stdout.isTTY === true ? terminal.stdout : writableOf(io.stderr);
    approvals = createApprovalPrompt(prepared, {
      automation: options.automation,
      warn: io.stderr,
      ...(terminal ? { terminal: { input: terminal.stdin, output } } : {}),
      ...(io.requestInterrupt ? { onInterrupt: io.requestInterrupt } : {}),
    });
  }
  let reviews: { handle(event: RunEvent): void; close(): void } | null = null;
  if (options.review === true) {
    reviews = reviewOnTerminal
      ? createReviewPrompt(prepared, {
          input: io.terminal!.stdin,
          output: io.terminal!.stdout,
          ...(io.requestInterrupt ? { onInterrupt: io.requestInterrupt } : {}),
        })
      : prepared.logDir !== null
        ? createFileReviews(prepared, prepared.logDir, say)
        : null;
  }
  if (options.debug) {
    handlers.push((event) => {
      // JSON escapes C0 controls but not C1 or bidi controls: those are shown escaped too.
      if (event.type !== 'agent.text.delta') io.stderr(`[event] ${inertText(JSON.stringify(event))}\n`);
    });
  }
  // Warnings go to stderr at once, or, while the live view owns the screen, right after it closes.
  const heldWarnings: string[] = [];
  const warn = (message: string) => {
    const text = `massgen: warning: ${inertText(message)}\n`;
    if (live) heldWarnings.push(text);
    else io.stderr(text);
  };
  let finalFinish = initialFinalFinish();
  handlers.push((event) => {
    finalFinish = reduceFinalFinish(finalFinish, event);
    if (event.type === 'run.warning') warn(event.message);
    // A final answer cut off at the output limit: the plain view says it in its own output.
    const cutOff = event.type === 'presentation.finished' ? cutOffReason(finalFinish) : null;
    if (cutOff && !plain && !options.automation) warn(cutOffText(cutOff));
  });
  const finishWithWarnings = finish;
  finish = async () => {
    await finishWithWarnings();
    for (const text of heldWarnings.splice(0)) io.stderr(text);
  };
  if (reviews) {
    const prompt = reviews;
    handlers.push((event) => prompt.handle(event));
    const finishView = finish;
    finish = async () => {
      prompt.close();
      await finishView();
    };
  }
  if (approvals) {
    // Last, so a question follows the lines that say the call waits.
    const prompt = approvals;
    handlers.push((event) => prompt.handle(event));
    const finishView = finish;
    finish = async () => {
      prompt.close();
      await finishView();
    };
  }
  return {
    handle: (event) => handlers.forEach((handle) => handle(event)),
    finish: () => finish(),
    ready,
    get live() {
      return live;
    },
  };
}

/** A run's answer to a steering request, as the live view reports it. */
const outcome = (result: { accepted: boolean; message?: string }) =>
  result.accepted ? { ok: true } : { ok: false, ...(result.message ? { message: result.message } : {}) };

/** A stream over a {@link Write} function (for readline). */
function writableOf(write: Write): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      write(chunk.toString());
      callback();
    },
  });
}
