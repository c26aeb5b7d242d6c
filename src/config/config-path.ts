/** One step into the config: an object key or an array index. */
export type PathSegment = string | number;

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * A key or name from a file that may be repeated in a message: one that looks like a name
 * (`modle`, `my-server`, `openai/gpt-4o`). Anything else — a line of `/etc/shadow` or of a `.env`
 * read as a key, a key with `=`, `$` or `:` — is file content, and is left out of every message.
 */
const SHOWN_NAME = /^[A-Za-z0-9_](?:[\w.\-/@+ ]{0,62}[\w.\-/@+])?$/;

/** True when `name` (a key, an agent id) may appear in a message; see {@link SHOWN_NAME}. */
export const isShownName = (name: string): boolean => SHOWN_NAME.test(name);

/** Stands for a key that is not shown. */
export const HIDDEN_KEY = '[…]';

/**
 * Renders a path the way users read it, e.g. `agents[1].backend.modle`. Keys that would be
 * ambiguous in dotted form (dots, slashes) are quoted: `headers["x.y"]`; a key that does not look
 * like a name is not shown at all: `[…]` (the line and column still point at it).
 */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else if (isShownName(segment)) out += `[${JSON.stringify(segment)}]`;
    else out += HIDDEN_KEY;
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
