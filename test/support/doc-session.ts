/**
 * Runs a documentation page's shell session as written, for the tests that keep docs/*.md true: the
 * page's scripted model starts on a free port (the page says 8123, which may be taken), `massgen` on
 * PATH is this package's built CLI and `massgen/testing` resolves to this package.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../e2e/cli-harness.js';
import { waitUntil } from './wait.js';

/** The repository's root folder. */
export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The bodies of the fenced code blocks of `page` in language `lang`, in order. */
export const codeBlocks = (page: string, lang: string): string[] =>
  [...page.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);

/** `docs/<name>`'s text. */
export const readDoc = (name: string): string => readFileSync(path.join(ROOT, 'docs', name), 'utf8');

/**
 * Runs `session` (bash, `-e`) in a fresh folder with `model` (a Node script that prints
 * `scripted model on …` once listening) in the background, then `check(run, cwd)`; the model is
 * killed and the folder removed whatever happens.
 */
export async function runDocSession(
  { model, session, prefix }: { model: string; session: string; prefix: string },
  check: (run: SpawnSyncReturns<string>, cwd: string) => void,
): Promise<void> {
  const cwd = mkdtempSync(path.join(tmpdir(), prefix));
  const bin = path.join(cwd, 'bin');
  mkdirSync(bin);
  mkdirSync(path.join(cwd, 'node_modules'));
  writeFileSync(
    path.join(bin, 'massgen'),
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin', 'massgen.js')}" "$@"\n`,
  );
  chmodSync(path.join(bin, 'massgen'), 0o755);
  symlinkSync(ROOT, path.join(cwd, 'node_modules', 'massgen'), 'dir');
  const port = String(await freePort());
  writeFileSync(path.join(cwd, 'fake-model.mjs'), model.replaceAll('8123', port));
  const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: cwd };
  const fake = spawn(process.execPath, ['fake-model.mjs'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  fake.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  try {
    await waitUntil(() => out.includes('scripted model on'), 'the scripted model', { seen: () => out });
    const run = spawnSync('bash', ['-e', '-c', session.replaceAll('8123', port)], {
      cwd,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    check(run, cwd);
  } finally {
    fake.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
}
