import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../types/errors.js';

/** `@scope/name/sub/path` → the package name and the `exports` key of the subpath (`./sub/path`). */
function splitSpecifier(specifier: string): { pkg: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return { pkg: parts.slice(0, length).join('/'), subpath: rest ? `./${rest}` : '.' };
}

/** The file an `import` of an `exports` entry loads: conditions `import`, `node`, `default`, nested. */
function esmTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const conditions = entry as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const target = esmTarget(conditions[condition]);
    if (target !== undefined) return target;
  }
  return undefined;
}

/**
 * Imports `specifier` (a package or one of its subpaths) as the file `fromFile` would with `import` —
 * the same copy and the same (ESM) entry — so that module state the user's code set up (a default
 * client, global settings) and the classes it made its objects with are the ones the adapter sees.
 *
 * @throws {ConfigError} naming the package to install when it cannot be found from `fromFile`.
 */
export async function importFromProject(specifier: string, fromFile: string): Promise<unknown> {
  const { pkg, subpath } = splitSpecifier(specifier);
  let entry: string;
  try {
    entry = createRequire(fromFile).resolve(specifier);
  } catch {
    throw new ConfigError(`${pkg} is not installed where ${fromFile} can import it`, {
      hint: `npm install ${pkg} in your project`,
    });
  }
  // The CommonJS entry says where the package is; its package.json says which file `import` loads.
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; exports?: unknown };
    if (json.name !== pkg) continue;
    const exportsMap = json.exports as Record<string, unknown> | string | undefined;
    const target =
      typeof exportsMap === 'object' && exportsMap !== null && subpath in exportsMap
        ? esmTarget(exportsMap[subpath])
        : subpath === '.'
          ? esmTarget(exportsMap)
          : undefined;
    return import(pathToFileURL(target ? path.join(dir, target) : entry).href);
  }
  return import(pathToFileURL(entry).href);
}
