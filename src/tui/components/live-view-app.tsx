import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useInput, useStdin, useStdout } from 'ink';
import { DEFAULT_COLUMNS, DEFAULT_ROWS, scrollExtent } from '../lines.js';
import { KeyDecoder } from '../key-chunks.js';
import type { LiveViewStore } from '../store.js';
import { LiveView } from './live-view.js';

export interface LiveViewAppProps {
  store: LiveViewStore;
  /** Overrides the terminal's width (tests, or a CLI option). */
  columns?: number;
  /** Overrides the terminal's height. */
  rows?: number;
}

function useTerminalSize(): { columns: number | undefined; rows: number | undefined } {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => ({ columns: stdout.columns, rows: stdout.rows }));
  useEffect(() => {
    const onResize = () => setSize({ columns: stdout.columns, rows: stdout.rows });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}

/**
 * The live view wired to a {@link LiveViewStore} and the keyboard. Keys go to the store (`reduceUi`,
 * and `y`/`n` for a pending tool approval), one at a time however they arrive ({@link KeyDecoder});
 * once cancellation is requested, raw mode is released so a further Ctrl-C reaches the process as a
 * plain SIGINT.
 */
export function LiveViewApp({ store, columns, rows }: LiveViewAppProps) {
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const size = useTerminalSize();
  const { isRawModeSupported } = useStdin();
  const width = Math.max(20, columns ?? size.columns ?? DEFAULT_COLUMNS);
  const height = Math.max(8, rows ?? size.rows ?? DEFAULT_ROWS);

  const decoder = useRef(new KeyDecoder());

  useInput(
    (input, key) => {
      // One read may hold several keys, or a paste: each key is applied in turn.
      for (const decoded of decoder.current.decode(input, key)) {
        if (decoded.kind === 'paste') {
          store.paste(decoded.text);
          continue;
        }
        const { view, ui } = store.current();
        store.key(decoded.key, { maxScroll: scrollExtent(view, ui, width, height) });
      }
    },
    { isActive: isRawModeSupported === true && !snapshot.ui.cancelRequested && !snapshot.closed },
  );

  if (snapshot.closed) return null;
  return (
    <LiveView
      view={snapshot.view}
      ui={snapshot.ui}
      columns={width}
      rows={height}
      now={snapshot.now}
      canApprove={store.canApprove}
      steering={store.steering}
    />
  );
}
