import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfigPath } from './config-relative.js';

let root: string;
let baseDir: string;
let projectDir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'config-relative-'));
  baseDir = path.join(root, 'user-config');
  projectDir = path.join(root, 'cloned');
  mkdirSync(baseDir);
  mkdirSync(path.join(projectDir, 'tools'), { recursive: true });
  writeFileSync(path.join(projectDir, 'tools', 'helper.ts'), 'export const run = () => 1;\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('resolveConfigPath', () => {
  it('falls back to the working folder, as MassGen does, with a note', () => {
    const notes: string[] = [];
    expect(resolveConfigPath('tools/helper.ts', 'custom_tools[0].path', { baseDir, projectDir, notes })).toBe(
      path.join(projectDir, 'tools', 'helper.ts'),
    );
    expect(notes[0]).toContain('relative to the working directory');
  });

  it('never takes code from a working folder the user has not trusted', () => {
    const notes: string[] = [];
    const where = { baseDir, projectDir, notes, projectTrusted: false };
    expect(resolveConfigPath('tools/helper.ts', 'custom_tools[0].path', where)).toBe(
      path.join(baseDir, 'tools', 'helper.ts'),
    );
    expect(notes).toEqual([
      `custom_tools[0].path: "tools/helper.ts" is not beside the config file, and ${path.join(projectDir, 'tools', 'helper.ts')} is not used: the working folder is not trusted (massgen trust)`,
    ]);
  });
});
