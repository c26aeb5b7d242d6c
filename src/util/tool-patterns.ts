import type picomatch from 'picomatch';
import { loadPicomatch } from './picomatch.js';

/**
 * How tool names are matched. Tool names are not paths: `bash` makes `*` match any run of characters,
 * `/` included, and `dot` lets it match a leading `.`; `windows: false` keeps it the same on every
 * platform. A leading `!` and extglobs (`@(…)`) stay literal, so `!x` never turns an allow list into
 * "everything but x".
 */
const OPTIONS: picomatch.PicomatchOptions = {
  bash: true,
  dot: true,
  windows: false,
  nonegate: true,
  noextglob: true,
};

const matchers = new Map<string, picomatch.Matcher>();

function matcherFor(pattern: string): picomatch.Matcher {
  let matcher = matchers.get(pattern);
  if (matcher === undefined) {
    matcher = loadPicomatch()(pattern, OPTIONS);
    matchers.set(pattern, matcher);
  }
  return matcher;
}

/**
 * Tool-name patterns as users write them in `allowed_tools`, `exclude_tools` and
 * `planning_mode_allowed_tools`: exact names, or globs where `*` matches any run of characters
 * (`mcp__filesystem__*`), `?` one character, and `[abc]` / `{read,write}` pick among alternatives.
 */
export function matchesToolPattern(name: string, pattern: string): boolean {
  return name === pattern || matcherFor(pattern)(name);
}

/** True when `name` matches any of `patterns`. */
export const matchesAnyToolPattern = (name: string, patterns: readonly string[]): boolean =>
  patterns.some((pattern) => matchesToolPattern(name, pattern));
