import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../../types/errors.js';

/**
 * Imports `pkg` as the file `fromFile` would with `import` — the same copy and the same (ESM) entry —
 * so that module state the user's code set up (a default client, global settings) is the state the
 * adapter sees. Node resolves the package; its `exports` "import" condition picks the entry.
 *
 * @throws {ConfigError} naming the package to install when it cannot be found from `fromFile`.
 */
export async function importFromProject(pkg: string, fromFile: string): Promise<unknown> {
  let entry: string;
  try {
    entry = createRequire(fromFile).resolve(pkg);
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
    const root = (json.exports as Record<string, unknown> | undefined)?.['.'];
    const esm =
      typeof root === 'object' && root !== null
        ? ((root as Record<string, unknown>).import ?? (root as Record<string, unknown>).default)
        : undefined;
    const target = typeof esm === 'string' ? path.join(dir, esm) : entry;
    return import(pathToFileURL(target).href);
  }
  return import(pathToFileURL(entry).href);
}
