import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { loadDotEnv } from './load-dot-env.js';

/**
 * Root reads any file whatever its mode, so as root the permission test reads the file as `nobody`
 * (through `setpriv`, in a child process running this module's source under tsx).
 */
const unprivileged = ((): {
  ok: boolean;
  reason: string;
  loadDotEnv: (cwd: string) => { name: string; message: string } | null;
} => {
  const direct = (cwd: string) => {
    try {
      loadDotEnv(cwd, {});
      return null;
    } catch (error) {
      return error instanceof ConfigError
        ? { name: error.name, message: error.message }
        : { name: 'other', message: String(error) };
    }
  };
  if (process.getuid?.() !== 0) return { ok: true, reason: '', loadDotEnv: direct };
  const drop = ['--reuid=65534', '--regid=65534', '--clear-groups'];
  if (spawnSync('setpriv', [...drop, 'true']).status !== 0)
    return {
      ok: false,
      reason: 'running as root, which reads any file, and setpriv cannot drop to nobody',
      loadDotEnv: direct,
    };
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const source = fileURLToPath(new URL('./load-dot-env.ts', import.meta.url));
  const child = (cwd: string) => {
    const script = `import(${JSON.stringify(source)}).then((m) => {
      try { m.loadDotEnv(${JSON.stringify(cwd)}, {}); console.log('null'); }
      catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })); }
    });`;
    const run = spawnSync('setpriv', [...drop, process.execPath, '--import', 'tsx', '-e', script], {
      cwd: repo,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
    });
    if (run.status !== 0) throw new Error(`the unprivileged reader failed: ${run.stderr}`);
    return JSON.parse(run.stdout.trim()) as { name: string; message: string } | null;
  };
  return { ok: true, reason: '', loadDotEnv: child };
})();

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'massgen-dotenv-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadDotEnv', () => {
  it('returns a copy of env when there is no .env', () => {
    const env = { A: '1' };
    const merged = loadDotEnv(dir, env);
    expect(merged).toEqual({ A: '1' });
    expect(merged).not.toBe(env);
  });

  it('adds variables from .env, letting variables already in env win', () => {
    writeFileSync(
      join(dir, '.env'),
      '# comment\nOPENAI_API_KEY=from-file\nOTHER="quoted value"\nEMPTY_IN_ENV=file\nexport EXPORTED=yes\n',
    );
    const env = { OPENAI_API_KEY: 'from-shell', EMPTY_IN_ENV: '', UNSET: undefined };
    const merged = loadDotEnv(dir, env);
    expect(merged.OPENAI_API_KEY).toBe('from-shell');
    expect(merged.OTHER).toBe('quoted value');
    // An empty string is still a value the user set on purpose.
    expect(merged.EMPTY_IN_ENV).toBe('');
    expect(merged.UNSET).toBeUndefined();
    expect(env).toEqual({ OPENAI_API_KEY: 'from-shell', EMPTY_IN_ENV: '', UNSET: undefined });
  });

  it('fills a variable that env lists as undefined', () => {
    writeFileSync(join(dir, '.env'), 'KEY=file\n');
    expect(loadDotEnv(dir, { KEY: undefined }).KEY).toBe('file');
  });

  it.skipIf(!unprivileged.ok)(
    `reports an unreadable .env without showing its contents${unprivileged.ok ? '' : ` (skipped: ${unprivileged.reason})`}`,
    () => {
      chmodSync(dir, 0o755); // the unprivileged reader must reach the folder, just not read the file
      writeFileSync(join(dir, '.env'), 'SECRET=sk-do-not-print\n');
      chmodSync(join(dir, '.env'), 0o000);
      const caught = unprivileged.loadDotEnv(dir);
      expect(caught?.name).toBe('ConfigError');
      expect(caught?.message).toBe(`cannot read ${join(dir, '.env')}: EACCES`);
      expect(caught?.message).not.toContain('sk-do-not-print');
    },
  );
});
