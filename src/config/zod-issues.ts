import type { z } from 'zod';
import { closestMatch } from '../util/closest-match.js';
import { formatPath, valueAt, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { describeLocation, explainUnknownKey, type SchemaNode } from './schema-keys.js';

/**
 * Passed as the per-parse error map so that zod's stock messages come back as this marker, while a
 * message written on the schema itself (which takes precedence) survives. Marked issues get our own
 * wording, which names the path and the offending value.
 */
export const DEFAULT_MESSAGE = '\u0000massgen-default';

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  null: 'null',
};

/**
 * `a string`, `a number`, `a list`: the value's type, never the value. A config's values include
 * secrets, and the file checked may not be a config at all (a `.env`, `/etc/shadow` given by mistake or
 * by a caller that should not read it): a diagnostic names the key, the type and the position only.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'boolean' ? 'true or false' : `a ${typeof value}`;
}

interface Context {
  tree: SchemaNode;
  /** The config after variable substitution (what zod saw). */
  data: unknown;
  /** The config as written, so a value that came from the environment can say which variable. */
  raw: unknown;
}

/** ` (from ${VAR})` when the value as written used environment variables: names only, never values. */
function fromVariables(path: PathSegment[], context: Context): string {
  const written = valueAt(context.raw, path);
  if (typeof written !== 'string') return '';
  const names = [...written.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => `\${${m[1]}}`);
  return names.length > 0 ? ` (from ${[...new Set(names)].join(', ')})` : '';
}

/** How the offending value is shown: its type (and the variables it came from), never itself. */
function shown(issue: z.core.$ZodIssue, path: PathSegment[], context: Context): string {
  const value = 'input' in issue && issue.input !== undefined ? issue.input : valueAt(context.data, path);
  return `${describeValue(value)}${fromVariables(path, context)}`;
}

function bound(
  issue: { origin: string; inclusive?: boolean },
  limit: number | bigint,
  kind: 'min' | 'max',
): string {
  if (issue.origin === 'string' && kind === 'min' && Number(limit) === 1) return 'must not be empty';
  if (issue.origin === 'array' || issue.origin === 'set') {
    const items = `${String(limit)} item${Number(limit) === 1 ? '' : 's'}`;
    return kind === 'min' ? `must have at least ${items}` : `must have at most ${items}`;
  }
  if (issue.origin === 'string')
    return `must be ${kind === 'min' ? 'at least' : 'at most'} ${String(limit)} characters`;
  const inclusive = issue.inclusive !== false;
  const word =
    kind === 'min' ? (inclusive ? 'at least' : 'greater than') : inclusive ? 'at most' : 'less than';
  return `must be ${word} ${String(limit)}`;
}

/** Our wording for an issue zod described with a stock message; returns message and optional hint. */
function describeIssue(
  issue: z.core.$ZodIssue,
  path: PathSegment[],
  context: Context,
): { text: string; hint?: string } {
  switch (issue.code) {
    case 'invalid_type': {
      const got = shown(issue, path, context);
      const expected = EXPECTED[issue.expected] ?? `a ${issue.expected}`;
      const text = `expected ${expected}, got ${got}`;
      // An empty `key:` in YAML is null, which surprises people.
      return got === 'null'
        ? { text, hint: 'an empty "key:" in YAML means null; remove the key or give it a value' }
        : { text };
    }
    case 'invalid_value': {
      const allowed = issue.values.map((value) => String(value));
      const input = valueAt(context.data, path);
      // The suggestion is one of the allowed values: it tells what was meant without repeating it.
      const near = typeof input === 'string' ? closestMatch(input, allowed) : undefined;
      const got =
        typeof input === 'string' ? fromVariables(path, context) : ` (${shown(issue, path, context)})`;
      const text = `invalid value${got}; allowed: ${allowed.join(', ')}`;
      return near === undefined ? { text } : { text, hint: `did you mean "${near}"?` };
    }
    case 'too_small':
      return { text: `${bound(issue, issue.minimum, 'min')}${fromVariables(path, context)}` };
    case 'too_big':
      return { text: `${bound(issue, issue.maximum, 'max')}${fromVariables(path, context)}` };
    case 'invalid_format': {
      const expected = issue.format === 'url' ? 'an http:// or https:// URL' : `a valid ${issue.format}`;
      return { text: `expected ${expected}, got ${shown(issue, path, context)}` };
    }
    case 'not_multiple_of':
      return { text: `must be a multiple of ${issue.divisor}` };
    default:
      return { text: `invalid value (${shown(issue, path, context)})` };
  }
}

const isPathSegment = (segment: PropertyKey): segment is PathSegment => typeof segment !== 'symbol';

/** Prefixes a sentence with its path (`agents[0].id: …`); top-level problems stand alone. */
export function withPath(path: readonly PathSegment[], text: string): string {
  return path.length === 0 ? text : `${formatPath(path)}: ${text}`;
}

/** Turns zod issues into problems with complete, user-facing sentences (one per unknown key). */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], context: Context): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.filter(isPathSegment);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const { message, hint } = explainUnknownKey(context.tree, path, key, context.data);
        problems.push({ path: [...path, key], message, ...(hint === undefined ? {} : { hint }), at: 'key' });
      }
      continue;
    }
    const last = path[path.length - 1];
    if (
      issue.code === 'invalid_type' &&
      typeof last === 'string' &&
      valueAt(context.data, path) === undefined
    ) {
      problems.push({
        path,
        message: `missing required key "${last}" at ${describeLocation(path.slice(0, -1))}`,
      });
      continue;
    }
    // A rejected mapping key carries the key schema's own message one level down.
    const keyMessage = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
    if (keyMessage !== undefined && keyMessage !== DEFAULT_MESSAGE) {
      problems.push({ path, message: withPath(path, keyMessage) });
      continue;
    }
    if (issue.message !== DEFAULT_MESSAGE) {
      problems.push({ path, message: withPath(path, issue.message) });
      continue;
    }
    const { text, hint } = describeIssue(issue, path, context);
    problems.push({
      path,
      message: withPath(path, text),
      ...(hint === undefined ? {} : { hint }),
    });
  }
  return withoutTypoEchoes(problems);
}

/**
 * A misspelt required key (`modle`) also makes zod report the real key as missing. The typo's
 * "did you mean" says it all, so the echo is dropped and the useful line comes first.
 */
function withoutTypoEchoes(problems: ConfigProblem[]): ConfigProblem[] {
  const suggested = new Set(
    problems
      .filter((p) => p.at === 'key' && p.hint !== undefined)
      .flatMap((p) => {
        const match = /did you mean "([^"]+)"/.exec(p.hint ?? '');
        return match ? [formatPath([...p.path.slice(0, -1), match[1] as string])] : [];
      }),
  );
  return problems.filter(
    (p) => !(p.message.includes('missing required key') && suggested.has(formatPath(p.path))),
  );
}
