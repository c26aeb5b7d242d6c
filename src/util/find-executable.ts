import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** The first executable file called `name` in the folders of `pathValue` (a PATH), or null. */
export function findExecutable(name: string, pathValue: string | undefined): string | null {
  for (const dir of (pathValue ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}
