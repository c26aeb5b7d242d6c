import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import {
  discoverConfig,
  loadUserEnv,
  mergeEnvText,
  stageFile,
  userConfigDir,
  userConfigFile,
  userEnvFile,
  writeEnvFile,
} from './config-discovery.js';

let root: string;
let cwd: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'massgen-discovery-'));
  cwd = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(cwd);
  mkdirSync(home);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('userConfigDir', () => {
  it('is ~/.config/massgen by default', () => {
    expect(userConfigDir({}, home)).toBe(path.join(home, '.config', 'massgen'));
    expect(userConfigFile({}, home)).toBe(path.join(home, '.config', 'massgen', 'config.yaml'));
    expect(userEnvFile({}, home)).toBe(path.join(home, '.config', 'massgen', '.env'));
  });

  it('follows an absolute XDG_CONFIG_HOME and ignores a relative one', () => {
    const xdg = path.join(root, 'xdg');
    expect(userConfigDir({ XDG_CONFIG_HOME: xdg }, home)).toBe(path.join(xdg, 'massgen'));
    expect(userConfigDir({ XDG_CONFIG_HOME: 'relative/dir' }, home)).toBe(
      path.join(home, '.config', 'massgen'),
    );
    expect(userConfigDir({ XDG_CONFIG_HOME: '' }, home)).toBe(path.join(home, '.config', 'massgen'));
  });
});

describe('discoverConfig', () => {
  it('returns null when nothing is configured', () => {
    expect(discoverConfig({ cwd, env: {}, home })).toBeNull();
  });

  it('finds the user config in ~/.config/massgen', () => {
    const user = write(path.join(home, '.config', 'massgen', 'config.yaml'), 'agents: []\n');
    expect(discoverConfig({ cwd, env: {}, home })).toEqual({ path: user, scope: 'user' });
  });

  it('finds the user config under $XDG_CONFIG_HOME instead of ~/.config', () => {
    const xdg = path.join(root, 'xdg');
    write(path.join(home, '.config', 'massgen', 'config.yaml'), 'ignored\n');
    const user = write(path.join(xdg, 'massgen', 'config.yaml'), 'agents: []\n');
    expect(discoverConfig({ cwd, env: { XDG_CONFIG_HOME: xdg }, home })).toEqual({
      path: user,
      scope: 'user',
    });
  });

  it('prefers ./.massgen/config.yaml over the user config', () => {
    write(path.join(home, '.config', 'massgen', 'config.yaml'), 'agents: []\n');
    const project = write(path.join(cwd, '.massgen', 'config.yaml'), 'agents: []\n');
    expect(discoverConfig({ cwd, env: {}, home })).toEqual({ path: project, scope: 'project' });
  });

  it('does not mistake the log folder for a config', () => {
    mkdirSync(path.join(cwd, '.massgen', 'massgen_logs'), { recursive: true });
    expect(discoverConfig({ cwd, env: {}, home })).toBeNull();
  });

  it('resolves a relative cwd', () => {
    write(path.join(cwd, '.massgen', 'config.yaml'), 'agents: []\n');
    const relative = path.relative(process.cwd(), cwd);
    expect(discoverConfig({ cwd: relative, env: {}, home })?.path).toBe(
      path.join(cwd, '.massgen', 'config.yaml'),
    );
  });
});

describe('loadUserEnv', () => {
  it('merges the real environment, ./.env (a trusted folder’s) and the user .env, in that order of precedence', () => {
    write(path.join(cwd, '.env'), 'A=project\nB=project\n');
    write(path.join(home, '.config', 'massgen', '.env'), 'A=user\nB=user\nC=user\n');
    const env = { A: 'shell' };
    const merged = loadUserEnv({ cwd, env, home, projectEnv: true });
    expect(merged).toMatchObject({ A: 'shell', B: 'project', C: 'user' });
    expect(env).toEqual({ A: 'shell' }); // not modified
  });

  it("leaves ./.env out unless the caller says the folder is trusted; the user's .env still loads", () => {
    write(path.join(cwd, '.env'), 'OPENAI_BASE_URL=http://attacker\nB=project\n');
    write(path.join(home, '.config', 'massgen', '.env'), 'B=user\n');
    for (const merged of [
      loadUserEnv({ cwd, env: {}, home }),
      loadUserEnv({ cwd, env: {}, home, projectEnv: false }),
    ]) {
      expect(merged.OPENAI_BASE_URL).toBeUndefined();
      expect(merged.B).toBe('user');
    }
  });

  it('reads the user .env from $XDG_CONFIG_HOME', () => {
    const xdg = path.join(root, 'xdg');
    write(path.join(xdg, 'massgen', '.env'), 'OPENAI_API_KEY=from-xdg\n');
    expect(loadUserEnv({ cwd, env: { XDG_CONFIG_HOME: xdg }, home }).OPENAI_API_KEY).toBe('from-xdg');
  });

  it('works with neither file', () => {
    expect(loadUserEnv({ cwd, env: { X: '1' }, home })).toEqual({ X: '1' });
  });
});

describe('mergeEnvText', () => {
  it('appends new variables and keeps comments and other lines', () => {
    const text = mergeEnvText('# my keys\nOTHER=1\n\n', { OPENAI_API_KEY: 'sk-1' });
    expect(text).toBe('# my keys\nOTHER=1\n\nOPENAI_API_KEY=sk-1\n');
  });

  it('replaces a variable in place and drops its duplicates', () => {
    const text = mergeEnvText('A=old\nB=2\nexport A=older\n# A=comment stays\n', { A: 'new' });
    expect(text).toBe('A=new\nB=2\n# A=comment stays\n');
    expect(parseEnv(text)).toEqual({ A: 'new', B: '2' });
  });

  it('starts an empty file', () => {
    expect(mergeEnvText('', { K: 'v' })).toBe('K=v\n');
    expect(mergeEnvText('', {})).toBe('');
  });

  it('quotes values a .env file would otherwise misread, and they read back exactly', () => {
    const values = { A: 'abc#def', B: 'with space', C: 'x"y', D: 'sk-proj_AZ09.-/+=:@~,%' };
    const text = mergeEnvText('', values);
    expect(text).toContain('D=sk-proj_AZ09.-/+=:@~,%\n');
    expect(parseEnv(text)).toEqual(values);
  });

  it('refuses a value it cannot store without printing it', () => {
    let caught: unknown;
    try {
      mergeEnvText('', { K: "it's\nsecret-value" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain('K');
    expect((caught as Error).message).not.toContain('secret-value');
    expect(() => mergeEnvText('', { 'BAD-NAME': 'x' })).toThrow(/invalid environment variable name/);
  });
});

describe('writeEnvFile', () => {
  it('creates the file with mode 600 and merges on later writes without duplicates', () => {
    const file = path.join(home, '.config', 'massgen', '.env');
    writeEnvFile(file, { OPENAI_API_KEY: 'sk-one' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, `${readFileSync(file, 'utf8')}# hand-written\nEXTRA=yes\n`);
    writeEnvFile(file, { OPENAI_API_KEY: 'sk-two', GROQ_API_KEY: 'gsk-1' });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe('OPENAI_API_KEY=sk-two\n# hand-written\nEXTRA=yes\nGROQ_API_KEY=gsk-1\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // No temporary file is left behind.
    expect(readdirSync(path.dirname(file))).toEqual(['.env']);
  });
});

describe('stageFile', () => {
  it('leaves the destination alone until commit', () => {
    const file = write(path.join(root, 'out', 'config.yaml'), 'old\n');
    const staged = stageFile(file, 'new\n');
    expect(readFileSync(staged.tmpPath, 'utf8')).toBe('new\n');
    expect(readFileSync(file, 'utf8')).toBe('old\n');
    staged.commit();
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(existsSync(staged.tmpPath)).toBe(false);
    staged.discard(); // harmless after commit
    expect(readFileSync(file, 'utf8')).toBe('new\n');
  });

  it('discard removes the staged file and never creates the destination', () => {
    const file = path.join(root, 'fresh', 'config.yaml');
    const staged = stageFile(file, 'x\n');
    staged.discard();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(staged.tmpPath)).toBe(false);
  });
});
