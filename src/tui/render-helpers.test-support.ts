import type { ReactElement } from 'react';
import { render } from 'ink-testing-library';

type Rendered = ReturnType<typeof render>;

/**
 * ink-testing-library's stdout is always 100 columns wide, and Ink lays the frame out at the
 * terminal's width: render, widen the fake terminal to `columns`, and render again.
 */
export function renderAt(tree: ReactElement, columns: number): Rendered {
  const instance = render(tree);
  Object.defineProperty(instance.stdout, 'columns', { get: () => columns, configurable: true });
  instance.rerender(tree);
  return instance;
}

/** Lets Ink's input handling (pending escape sequences use setImmediate) and React settle. */
export const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
