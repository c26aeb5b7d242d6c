import { createRequire } from 'node:module';
import type picomatch from 'picomatch';

// picomatch loads with the first glob matched, not at start: most runs have none (`npm run bench`,
// test/e2e/lazy-imports.test.ts). It is CommonJS, so `require` keeps every matcher synchronous.
let picomatchFn: typeof picomatch | undefined;

/** picomatch itself, required on first use (tool-name patterns, permission path rules and masks). */
export const loadPicomatch = (): typeof picomatch =>
  (picomatchFn ??= createRequire(import.meta.url)('picomatch') as typeof picomatch);
