import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * massgen's own package folder (the one holding its package.json): found by walking up from this
 * module, because the module sits at different depths in src/ (tests), dist/ (tsc's output, the
 * library) and dist/cli-bundle/ (the bundled CLI, scripts/bundle-cli.mjs).
 */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error(`massgen's package.json is not above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  cached = dir;
  return dir;
}

/** A path inside massgen's package folder. */
export function packagePath(...segments: string[]): string {
  return path.join(packageRoot(), ...segments);
}
