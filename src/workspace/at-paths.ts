import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';

/**
 * `@path` in a question (`massgen "review @src/app.ts and @docs/"`), as MassGen reads it: the file or
 * folder is attached read-only as a context path, and the question keeps its words. The rule
 * (docs/hooks.md):
 *
 * - an `@` counts only at the start of the question or after a space or an opening bracket or quote —
 *   `bob@example.com` and `a@b` are words, not paths;
 * - the path runs to the next space; `.,;:!?` and closing brackets or quotes at its end are sentence
 *   punctuation, not part of it (unless only the path with them exists);
 * - a path that exists is attached; one that does not is an error when it looks like a path (it has a
 *   `/`, starts with `.` or `~`, or ends in an extension like `.txt`) — `@missing.txt` stops the run
 *   before any request — and is left as a word otherwise (`@alice`, `@here`).
 */

/** One `@path` found in a question. */
export interface AtPath {
  /** As written after the `@`. */
  written: string;
  /** Absolute. */
  path: string;
}

const TOKEN = /(^|[\s([{"'`])@([^\s@]+)/g;
const TRAILING = /[.,;:!?)\]}"'`]+$/;
const PATH_LIKE = /\/|^[.~]|\.[A-Za-z0-9]{1,10}$/;

function resolve(written: string, cwd: string): string {
  if (written === '~' || written.startsWith('~/')) return path.join(os.homedir(), written.slice(1));
  return path.resolve(cwd, written);
}

/**
 * The `@path`s of `question`, each once, resolved against `cwd`.
 * @throws {ConfigError} naming the first `@path` that looks like a path and does not exist.
 */
export function findAtPaths(question: string, cwd: string): AtPath[] {
  const found = new Map<string, AtPath>();
  for (const match of question.matchAll(TOKEN)) {
    const raw = match[2]!;
    const trimmed = raw.replace(TRAILING, '');
    const written =
      trimmed === '' || (!existsSync(resolve(trimmed, cwd)) && existsSync(resolve(raw, cwd))) ? raw : trimmed;
    const absolute = resolve(written, cwd);
    if (existsSync(absolute)) {
      if (!found.has(absolute)) found.set(absolute, { written, path: absolute });
      continue;
    }
    if (!PATH_LIKE.test(written)) continue;
    throw new ConfigError(`@${written}: no such file or folder (looked for ${absolute})`, {
      hint: 'check the path (relative to the folder massgen runs in), or write it without the @ if it is not a file',
    });
  }
  return [...found.values()];
}
