import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';

const UNTRUSTED = 'the working folder is not trusted';

/**
 * A path from a config file: relative to the file's folder. MassGen resolves such paths from the
 * working directory instead (its configs point into a MassGen checkout), so a relative path missing
 * beside the config but present under `projectDir` is taken from there — with a note in `notes`, so
 * the user knows which one was used. With `projectTrusted: false` (code from a folder the user has not
 * trusted: docs/security.md) that copy is not used, and the note says so.
 */
export function resolveConfigPath(
  written: string,
  where: string,
  options: {
    baseDir: string;
    projectDir?: string | undefined;
    notes?: string[] | undefined;
    projectTrusted?: boolean | undefined;
  },
): string {
  const beside = path.resolve(options.baseDir, written);
  if (existsSync(beside) || path.isAbsolute(written) || options.projectDir === undefined) return beside;
  const fromProject = path.resolve(options.projectDir, written);
  if (fromProject === beside || !existsSync(fromProject)) return beside;
  if (options.projectTrusted === false) {
    options.notes?.push(
      `${where}: "${written}" is not beside the config file, and ${fromProject} is not used: ${UNTRUSTED} (massgen trust)`,
    );
    return beside;
  }
  options.notes?.push(
    `${where}: "${written}" is not beside the config file; using ${fromProject} (relative to the working directory, as MassGen does)`,
  );
  return fromProject;
}

/**
 * `error` (a module that was not found, say) with the reason when {@link resolveConfigPath} left the
 * working folder's copy out as untrusted: the user learns why, not just that the file is missing.
 */
export function withUntrustedHint(error: unknown, notes: readonly string[]): unknown {
  if (!(error instanceof ConfigError) || error.path === undefined) return error;
  const note = notes.find((n) => n.startsWith(error.path!) && n.includes(UNTRUSTED));
  if (!note) return error;
  return new ConfigError(error.message, {
    cause: error,
    path: error.path,
    hint: note.slice(note.indexOf(': ') + 2),
  });
}
