import type { PreparedRun } from '../app/index.js';
import type { RunEvent } from '../types/events.js';
import { isLiveViewSupported, startLiveView } from '../tui/index.js';
import { createAutomationDisplay, printAutomationHeader } from './automation-display.js';
import { createPlainDisplay, type Write } from './plain-display.js';

/** How one run is shown: events in, then `finish()` once the stream has ended. */
export interface RunView {
  handle(event: RunEvent): void;
  finish(): Promise<void>;
  /** True while the full-screen live view owns the terminal (nothing else may write). */
  readonly live: boolean;
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
}

/**
 * Picks the view for a run: `--automation` lines; `silent` → only the final answer; the live
 * terminal UI on a TTY (`rich_terminal`, the default); otherwise plain streaming text. `--debug`
 * adds every event on stderr and keeps the plain view, since the live view owns the screen.
 */
export function createRunView(io: RunViewIo, options: RunViewOptions, prepared: PreparedRun): RunView {
  const handlers: ((event: RunEvent) => void)[] = [];
  let finish = async (): Promise<void> => {};
  let live = false;
  const displayType = prepared.config.ui.display_type;
  if (options.automation) {
    printAutomationHeader(io.stdout, prepared);
    handlers.push(createAutomationDisplay(io.stdout));
  } else if (displayType === 'silent' && options.display) {
    handlers.push((event) => {
      if (event.type === 'presentation.finished') io.stdout(`${event.content}\n`);
    });
  } else if (
    options.display &&
    !options.debug &&
    displayType === 'rich_terminal' &&
    io.terminal &&
    isLiveViewSupported(io.terminal.stdout, io.env)
  ) {
    const view = startLiveView({
      stdout: io.terminal.stdout,
      stdin: io.terminal.stdin,
      onCancel: () => io.requestInterrupt?.(),
    });
    live = true;
    handlers.push((event) => view.handle(event));
    finish = async () => {
      await view.finish();
      live = false;
    };
  } else {
    handlers.push(createPlainDisplay(io.stdout, { showReasoning: options.debug }));
  }
  if (options.debug) {
    handlers.push((event) => {
      if (event.type !== 'agent.text.delta') io.stderr(`[event] ${JSON.stringify(event)}\n`);
    });
  }
  return {
    handle: (event) => handlers.forEach((handle) => handle(event)),
    finish: () => finish(),
    get live() {
      return live;
    },
  };
}
