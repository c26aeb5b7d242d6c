import { readFileSync } from 'node:fs';

interface PackageJson {
  version?: string;
  dependencies?: Record<string, string>;
}

let cached: PackageJson | undefined;

function packageJson(): PackageJson {
  // Same relative path from src/app (tests) and dist/app (the built CLI).
  cached ??= JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as PackageJson;
  return cached;
}

/** massgen's own version. */
export function massgenVersion(): string {
  return packageJson().version ?? '0.0.0';
}

/** Versions recorded in every run's metadata, so a log can be tied to the code that made it. */
export function runtimeVersions(): Record<string, string> {
  const deps = packageJson().dependencies ?? {};
  return {
    massgen: massgenVersion(),
    node: process.versions.node,
    ...Object.fromEntries(
      Object.entries(deps).filter(([name]) => name === 'ai' || name.startsWith('@ai-sdk/')),
    ),
  };
}
