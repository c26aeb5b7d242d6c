/** One step into the config: an object key or an array index. */
export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Renders a path the way users read it, e.g. `agents[1].backend.modle`. Keys that would be
 * ambiguous in dotted form (dots, spaces, brackets) are quoted: `headers["x.y"]`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Reads the value at `path`, or undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}
