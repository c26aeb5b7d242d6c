import { readFileSync } from 'node:fs';

/** The parts of massgen's package.json that the code reads. */
export interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
}

let cached: PackageJson | undefined;

/** massgen's own package.json, read once. */
export function packageJson(): PackageJson {
  // Same relative path from src/util (tests) and dist/util (the built CLI).
  cached ??= JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageJson;
  return cached;
}

/** massgen's own version. */
export function massgenVersion(): string {
  return packageJson().version ?? '0.0.0';
}
