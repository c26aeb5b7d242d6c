import { render } from 'ink';
import { LiveViewApp } from './components/live-view-app.js';
import { renderFinalScreen } from './components/final-screen.js';
import { PASTE_MODE_OFF, PASTE_MODE_ON } from './key-chunks.js';
import type { LiveViewStore } from './store.js';

export { renderFinalScreen };

/** Mounts the Ink app over `store` (loaded only when a live view starts: Ink is heavy). */
export function mountLiveView(
  store: LiveViewStore,
  options: {
    stdout: NodeJS.WriteStream;
    stdin: NodeJS.ReadStream;
    columns?: number;
    rows?: number;
  },
): { unmount: () => void; exited: Promise<unknown> } {
  const instance = render(
    <LiveViewApp
      store={store}
      {...(options.columns === undefined ? {} : { columns: options.columns })}
      {...(options.rows === undefined ? {} : { rows: options.rows })}
    />,
    { stdout: options.stdout, stdin: options.stdin, exitOnCtrlC: false, maxFps: 20 },
  );
  // Registered now: the promise only resolves if it exists before the unmount.
  const exited = instance.waitUntilExit().catch(() => undefined);
  // Bracketed paste: the terminal marks pasted text, so a paste is text and never a run of keys.
  const pasteMode = options.stdin.isTTY === true && options.stdout.isTTY === true;
  const pasteModeOff = () => {
    if (!options.stdout.destroyed && !options.stdout.writableEnded) options.stdout.write(PASTE_MODE_OFF);
  };
  if (pasteMode) {
    options.stdout.write(PASTE_MODE_ON);
    process.once('exit', pasteModeOff); // a crash or process.exit leaves the terminal as it was
  }
  return {
    unmount: () => {
      instance.unmount();
      if (!pasteMode) return;
      process.off('exit', pasteModeOff);
      pasteModeOff();
    },
    exited,
  };
}
