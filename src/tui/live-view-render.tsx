import { render } from 'ink';
import { LiveViewApp } from './components/live-view-app.js';
import { renderFinalScreen } from './components/final-screen.js';
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
  return { unmount: () => instance.unmount(), exited };
}
