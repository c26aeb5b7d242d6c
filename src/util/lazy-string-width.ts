import { createRequire } from 'node:module';

/** string-width's measure: terminal columns of plain text (escape sequences counted as characters). */
type StringWidth = (text: string, options: { countAnsiEscapeCodes: boolean }) => number;

/*
 * `string-width` with its dependencies and emoji tables takes ~35–50 ms to load, a sixth of a run's
 * time to its first request, and most runs print only ASCII before then. It is ESM and text layout is
 * synchronous, so it is loaded on first use with `require` where Node loads ES modules that way without
 * a warning (20.19+, 22.13+, 23.5+); elsewhere (22.0–22.12, 23.0–23.4) it is imported at start, as before.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const requireLoadsEsmQuietly =
  process.features.require_module === true && !(major === 22 && minor <= 12) && !(major === 23 && minor < 5);

let loaded: StringWidth | undefined = requireLoadsEsmQuietly
  ? undefined
  : ((await import('string-width')).default as StringWidth);

/** string-width, loaded the first time text beyond printable ASCII is measured. */
export function stringWidth(text: string, options: { countAnsiEscapeCodes: boolean }): number {
  loaded ??= (createRequire(import.meta.url)('string-width') as { default: StringWidth }).default;
  return loaded(text, options);
}
