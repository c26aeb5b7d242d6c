import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { loadDotEnv } from './load-dot-env.js';

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

  it('reports an unreadable .env without showing its contents', () => {
    if (process.getuid?.() === 0) return; // root reads anything
    writeFileSync(join(dir, '.env'), 'SECRET=sk-do-not-print\n');
    chmodSync(join(dir, '.env'), 0o000);
    let caught: unknown;
    try {
      loadDotEnv(dir, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).not.toContain('sk-do-not-print');
  });
});
