import { readFileSync } from 'node:fs';
import { packagePath } from './package-root.js';

/** The parts of massgen's package.json that the code reads. */
export interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
}

let cached: PackageJson | undefined;

/** massgen's own package.json, read once. */
export function packageJson(): PackageJson {
  cached ??= JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as PackageJson;
  return cached;
}

/** massgen's own version. */
export function massgenVersion(): string {
  return packageJson().version ?? '0.0.0';
}
