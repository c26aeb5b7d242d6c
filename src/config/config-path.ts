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

/**
 * Reads a path written by {@link formatPath} (or by hand in the same shape) back into its segments:
 * `agents[1].backend["x.y"]` → `['agents', 1, 'backend', 'x.y']`. Undefined when it is not one.
 */
export function parsePath(text: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  const step = /^(?:\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;
  let rest = text;
  while (rest !== '') {
    const match = step.exec(rest);
    if (!match || (segments.length === 0 && rest.startsWith('.'))) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]!) as string);
    rest = rest.slice(match[0].length);
  }
  return segments;
}
