/**
 * The live view as the CLI reaches it: whether it can run, and starting it with its modules (the
 * store, the screens' lines and Ink) imported only then. A run without a terminal — pipes, CI,
 * `--automation`, every benchmark — loads none of the view's code (test/e2e/lazy-imports.test.ts).
 */
import type { RunEvent } from '../types/events.js';
import type { LiveViewHandle, LiveViewOptions } from './live-view.js';

/**
 * Whether the live view can run on `stdout`: a terminal that is not `TERM=dumb`. (Under CI Ink only
 * writes the last frame, so CI counts as unsupported too.)
 */
export function isLiveViewSupported(
  stdout: Pick<NodeJS.WriteStream, 'isTTY'>,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (stdout.isTTY !== true) return false;
  if (env.TERM === 'dumb') return false;
  const ci = env.CI;
  if (ci !== undefined && ci !== '0' && ci !== 'false') return false;
  return true;
}

/**
 * {@link startLiveView} once its module has loaded. Events that arrive meanwhile are kept and handed
 * over in order, as the view itself keeps those that arrive before Ink is on screen; a failure to
 * load surfaces in `ready` and `finish()`, like a failure to mount.
 */
export function startLiveViewLazily(options: LiveViewOptions): LiveViewHandle {
  let view: LiveViewHandle | null = null;
  const pending: RunEvent[] = [];
  const started = import('./live-view.js').then(({ startLiveView }) => {
    view = startLiveView(options);
    for (const event of pending.splice(0)) view.handle(event);
    return view;
  });
  const ready = started.then((handle) => handle.ready);
  ready.catch(() => {}); // Awaited by whoever needs it.
  let finishing: Promise<void> | null = null;
  return {
    handle: (event) => {
      if (view) view.handle(event);
      else pending.push(event);
    },
    finish: () => (finishing ??= started.then((handle) => handle.finish())),
    ready,
  };
}
