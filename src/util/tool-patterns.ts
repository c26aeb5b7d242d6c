/**
 * Tool-name patterns as users write them in `allowed_tools`, `exclude_tools` and
 * `planning_mode_allowed_tools`: exact names, with `*` matching any run of characters
 * (`mcp__filesystem__*`).
 */
export function matchesToolPattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

/** True when `name` matches any of `patterns`. */
export const matchesAnyToolPattern = (name: string, patterns: readonly string[]): boolean =>
  patterns.some((pattern) => matchesToolPattern(name, pattern));
