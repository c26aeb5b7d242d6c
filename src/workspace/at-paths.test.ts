import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findAtPaths } from './at-paths.js';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'massgen-at-'));
mkdirSync(path.join(cwd, 'src'));
mkdirSync(path.join(cwd, 'docs'));
writeFileSync(path.join(cwd, 'src', 'app.ts'), '');
writeFileSync(path.join(cwd, 'notes.'), '');
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const written = (q: string) => findAtPaths(q, cwd).map((p) => p.written);

describe('@path in a question', () => {
  it('finds paths after a space, a bracket or a quote, with sentence punctuation taken off', () => {
    expect(written('review @src/app.ts and @docs/.')).toEqual(['src/app.ts', 'docs/']);
    expect(written('(@src/app.ts), "@docs/"!')).toEqual(['src/app.ts', 'docs/']);
    expect(findAtPaths('@src/app.ts', cwd)[0]!.path).toBe(path.join(cwd, 'src', 'app.ts'));
    // Punctuation stays when the path with it exists.
    expect(written('see @notes.')).toEqual(['notes.']);
    // Each once.
    expect(written('@src/app.ts @src/app.ts')).toEqual(['src/app.ts']);
  });

  it('an e-mail address, an @ inside a word, and a handle are not paths', () => {
    expect(written('mail bob@example.com and a@b/c.txt, ask @alice or @here')).toEqual([]);
  });

  it('a missing path-like @path is an error naming it', () => {
    expect(() => findAtPaths('review @missing.txt', cwd)).toThrow(
      `@missing.txt: no such file or folder (looked for ${path.join(cwd, 'missing.txt')})`,
    );
    expect(() => findAtPaths('see @lib/', cwd)).toThrow(/@lib\/: no such file or folder/);
    expect(() => findAtPaths('see @./x', cwd)).toThrow(/@\.\/x:/);
  });
});
