/**
 * Runs a documentation page's shell session as written, for the tests that keep docs/*.md true: in a
 * fresh folder outside the clone, with `massgen` on PATH being this package's built CLI — as after
 * `npm install -g massgen` — and nothing else of the repository in reach.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The bodies of the fenced code blocks of `page` in language `lang`, in order. */
export const codeBlocks = (page: string, lang: string): string[] =>
  [...page.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);

/** `docs/<name>`'s text. */
export const readDoc = (name: string): string => readFileSync(path.join(ROOT, 'docs', name), 'utf8');

/**
 * Runs `session` (bash, `-e`) in a fresh folder, then `check(run, cwd)`; the folder is removed whatever
 * happens.
 */
export function runDocSession(
  { session, prefix }: { session: string; prefix: string },
  check: (run: SpawnSyncReturns<string>, cwd: string) => void,
): void {
  const cwd = mkdtempSync(path.join(tmpdir(), prefix));
  const bin = path.join(cwd, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'massgen'),
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin', 'massgen.js')}" "$@"\n`,
  );
  chmodSync(path.join(bin, 'massgen'), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: cwd };
  try {
    const run = spawnSync('bash', ['-e', '-c', session], { cwd, env, encoding: 'utf8', timeout: 120_000 });
    check(run, cwd);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
