import { createInterface } from 'node:readline';
import type { PreparedRun } from '../app/index.js';
import { describeChange, pickNote } from '../types/change-kind.js';
import type { RunEvent, RunEventOf } from '../types/events.js';
import { inertText } from '../util/terminal-text.js';

/**
 * `--review` on a terminal: the winner's changes to an isolated context path (`write_mode: worktree`)
 * shown file by file, hunk by hunk, each with its kind (added, deleted, modified, renamed, mode or type
 * changed, a link with its target), and for each file the question whether to apply it — `y` yes, `n` no,
 * `a` this and every file after it (except those to be picked by name: a link out of the folder, a
 * repository of its own), `q` none of the rest. Everything shown comes from
 * files an agent wrote, so it is made inert. Ctrl-C applies nothing and cancels the run; the input
 * ending applies what was chosen so far.
 */

type Proposal = RunEventOf<'changes.proposed'>;

export interface ReviewPromptOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean; ref?: () => unknown };
  output: NodeJS.WritableStream;
  /** Ctrl-C at a question: the caller cancels the run (nothing more is applied). */
  onInterrupt?: () => void;
}

export interface ReviewPrompt {
  handle(event: RunEvent): void;
  close(): void;
}

/** The diff of one file as the terminal shows it: its kind (a link with its target, a rename, …), then its hunks. */
export function fileDiffText(file: Proposal['files'][number]): string {
  const counts = file.binary
    ? ', binary'
    : file.additions + file.deletions > 0
      ? `, +${file.additions} −${file.deletions}`
      : '';
  const head = `── ${file.path} (${describeChange(file)}${counts}) ──`;
  const note = pickNote(file);
  const warning = note === null ? [] : [`!! ${note}`];
  const hunks = file.hunks.map((h) => `${h.header}${h.lines === '' ? '' : `\n${h.lines}`}`);
  return inertText([head, ...warning, ...hunks].join('\n'));
}

export function createReviewPrompt(
  run: Pick<PreparedRun, 'respondToReview'>,
  options: ReviewPromptOptions,
): ReviewPrompt {
  const queue: Proposal[] = [];
  let busy = false;
  let closed = false;
  let abandon: (() => void) | null = null;
  const { input, output } = options;

  const review = (proposal: Proposal) => {
    busy = true;
    input.ref?.();
    const rl = createInterface({ input, output, terminal: input.isTTY === true });
    const chosen: string[] = [];
    let index = 0;
    let settled = false;
    const finish = (files: string[]) => {
      if (settled) return;
      settled = true;
      abandon = null;
      rl.close();
      run.respondToReview(proposal.reviewId, files, 'terminal');
      busy = false;
      next();
    };
    abandon = () => {
      settled = true;
      rl.close();
      busy = false;
    };
    rl.on('SIGINT', () => {
      // Ctrl-C: nothing is applied, and the run is cancelled.
      output.write('\n');
      finish([]);
      options.onInterrupt?.();
    });
    rl.on('close', () => finish(chosen));
    output.write(
      `${inertText(`Changes to ${proposal.contextPath} from ${proposal.agentId}${proposal.branch ? ` (branch ${proposal.branch})` : ''}: ${proposal.files.length} file${proposal.files.length === 1 ? '' : 's'}`)}\n`,
    );
    const ask = () => {
      const file = proposal.files[index];
      if (!file) return finish(chosen);
      output.write(`${fileDiffText(file)}\n`);
      rl.question(
        `${inertText(`Apply ${file.path}?`)} [y]es / [n]o / [a]ll from here / [q]uit (none of the rest): `,
        (answer) => {
          const key = answer.trim().toLowerCase()[0];
          if (key === 'a') {
            // "All" never takes a change that must be picked by name (a link out of the folder).
            const rest = proposal.files.slice(index).filter((f) => f.pickOnly === undefined);
            return finish([...chosen, ...rest.map((f) => f.path)]);
          }
          if (key === 'q') return finish(chosen);
          if (key === 'y') chosen.push(file.path);
          index++;
          ask();
        },
      );
    };
    ask();
  };

  const next = () => {
    if (closed || busy) return;
    const proposal = queue.shift();
    if (proposal) review(proposal);
  };

  const close = () => {
    closed = true;
    queue.length = 0;
    abandon?.();
  };

  return {
    handle(event) {
      if (closed) return;
      if (event.type === 'run.finished') return close();
      if (event.type !== 'changes.proposed' || !event.awaitingReview) return;
      queue.push(event);
      next();
    },
    close,
  };
}
