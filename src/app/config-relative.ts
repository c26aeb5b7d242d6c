import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A path from a config file: relative to the file's folder. MassGen resolves such paths from the
 * working directory instead (its configs point into a MassGen checkout), so a relative path missing
 * beside the config but present under `projectDir` is taken from there — with a note in `notes`, so
 * the user knows which one was used.
 */
export function resolveConfigPath(
  written: string,
  where: string,
  options: { baseDir: string; projectDir?: string | undefined; notes?: string[] | undefined },
): string {
  const beside = path.resolve(options.baseDir, written);
  if (existsSync(beside) || path.isAbsolute(written) || options.projectDir === undefined) return beside;
  const fromProject = path.resolve(options.projectDir, written);
  if (fromProject === beside || !existsSync(fromProject)) return beside;
  options.notes?.push(
    `${where}: "${written}" is not beside the config file; using ${fromProject} (relative to the working directory, as MassGen does)`,
  );
  return fromProject;
}
