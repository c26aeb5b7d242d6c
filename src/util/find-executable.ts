import { accessSync, constants, existsSync, statSync } from 'node:fs';
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

/**
 * Whether `command` names a file that exists: a path (relative to `cwd`), or a name in a folder of
 * `pathValue` — what `--validate` says before a run would find out (PATH differs between shells, so
 * callers warn rather than fail).
 */
export function commandExists(command: string, pathValue: string | undefined, cwd: string): boolean {
  if (command.includes('/') || command.includes('\\')) return existsSync(path.resolve(cwd, command));
  const extensions = process.platform === 'win32' ? ['', '.exe', '.cmd', '.bat'] : [''];
  return (pathValue ?? '')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .some((dir) => extensions.some((ext) => existsSync(path.join(dir, command + ext))));
}
