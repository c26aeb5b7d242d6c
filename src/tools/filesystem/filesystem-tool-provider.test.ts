import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Phase } from '../../types/events.js';
import type { ToolResult } from '../../types/tool.js';
import { createAgentToolRegistry } from '../agent-tool-registry.js';
import { createPathChecker } from '../permissions/check-path.js';
import type { ToolProvider } from '../tool-provider.js';
import { MAX_TEXT_FILE_BYTES } from './definitions.js';
import { createFilesystemToolProvider } from './filesystem-tool-provider.js';
import { fsContext, makeSandbox, type Sandbox } from './filesystem.test-support.js';

let box: Sandbox;
let fs: ToolProvider;
beforeEach(async () => {
  box = await makeSandbox();
  fs = createFilesystemToolProvider({ checkPath: createPathChecker(box.policy), workspace: box.workspace });
});
afterEach(async () => {
  await box.cleanup();
});

const call = (
  tool: string,
  args: Record<string, unknown>,
  phase: Phase = 'coordination',
): Promise<ToolResult> => fs.call(tool, args, fsContext(phase));

async function ok(tool: string, args: Record<string, unknown>, phase?: Phase): Promise<string> {
  const result = await call(tool, args, phase);
  if (result.isError) throw new Error(`${tool} failed: ${result.content}`);
  return result.content;
}
async function fails(tool: string, args: Record<string, unknown>, phase?: Phase): Promise<string> {
  const result = await call(tool, args, phase);
  expect(result.isError).toBe(true);
  return result.content;
}
const inWorkspace = (file: string) => readFile(path.join(box.workspace, file), 'utf8');

describe('filesystem tool definitions', () => {
  it('offers six plain-named tools with closed schemas and annotations', () => {
    const tools = fs.tools();
    expect(fs.name).toBe('filesystem');
    expect(tools.map((t) => t.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_directory',
      'delete_file',
      'copy_file',
    ]);
    for (const tool of tools) {
      expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.description).toMatch(/relative to your workspace/);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.read_file?.annotations).toEqual({ readOnly: true });
    expect(byName.list_directory?.annotations).toEqual({ readOnly: true });
    for (const name of ['write_file', 'edit_file', 'delete_file', 'copy_file']) {
      expect(byName[name]?.annotations?.destructive).toBe(true);
    }
    expect(byName.copy_file?.parameters.required).toEqual(['source', 'destination']);
    expect(
      createFilesystemToolProvider({
        checkPath: async () => ({ allowed: false, reason: '' }),
        workspace: '/',
        name: 'files',
      }).name,
    ).toBe('files');
  });
});

describe('read_file', () => {
  it('reads a text file and says which lines it shows', async () => {
    expect(await ok('read_file', { path: 'notes.txt' })).toBe(
      '[notes.txt: lines 1-3 of 3]\nline one\nline two\nline three',
    );
    expect(await ok('read_file', { path: 'notes.txt', offset_line: 2, max_lines: 1 })).toBe(
      '[notes.txt: lines 2-2 of 3; call read_file with offset_line=3 to read on]\nline two',
    );
    expect(await fails('read_file', { path: 'notes.txt', offset_line: 9 })).toMatch(/has only 3 lines/);
  });

  it('reads peer snapshots, context paths and read-only folders by absolute path', async () => {
    expect(await ok('read_file', { path: path.join(box.peers, 'agent_b/answer.md') })).toContain(
      'The answer is 41.',
    );
    expect(await ok('read_file', { path: path.join(box.contextRead, 'data.csv') })).toContain('1,2');
    expect(await ok('read_file', { path: '../previous/old.md' })).toContain('previous winner');
  });

  it('refuses binary files, large files, folders and missing files with a reason', async () => {
    await writeFile(path.join(box.workspace, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    await writeFile(path.join(box.workspace, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(path.join(box.workspace, 'big.txt'), 'x'.repeat(MAX_TEXT_FILE_BYTES + 1));
    await writeFile(path.join(box.workspace, 'empty.txt'), '');
    expect(await fails('read_file', { path: 'image.png' })).toMatch(/"image.png" looks like a binary file/);
    expect(await fails('read_file', { path: 'latin1.txt' })).toMatch(/binary/);
    expect(await fails('read_file', { path: 'big.txt' })).toMatch(/"big.txt" is 2\.0 MB, more than the 2 MB/);
    expect(await fails('read_file', { path: 'src' })).toMatch(/"src" is a folder; use list_directory/);
    expect(await fails('read_file', { path: 'nope.txt' })).toBe('"nope.txt" does not exist.');
    expect(await ok('read_file', { path: 'empty.txt' })).toBe('[empty.txt: empty file]');
  });
});

describe('write_file', () => {
  it('creates files with their parent folders and overwrites existing ones', async () => {
    expect(await ok('write_file', { path: 'a/b/c.md', content: 'hello' })).toBe(
      'Created "a/b/c.md" (5 bytes).',
    );
    expect(await inWorkspace('a/b/c.md')).toBe('hello');
    expect(await ok('write_file', { path: 'notes.txt', content: 'new' })).toBe(
      'Overwrote "notes.txt" (3 bytes).',
    );
    expect(await inWorkspace('notes.txt')).toBe('new');
  });

  it('reports a file in the way of a folder', async () => {
    expect(await fails('write_file', { path: 'notes.txt/inner.md', content: 'x' })).toMatch(
      /"notes.txt\/inner.md"/,
    );
  });
});

describe('edit_file', () => {
  it('replaces one exact occurrence', async () => {
    expect(await ok('edit_file', { path: 'notes.txt', old_string: 'line two', new_string: 'LINE 2' })).toBe(
      'Replaced 1 occurrence in "notes.txt".',
    );
    expect(await inWorkspace('notes.txt')).toBe('line one\nLINE 2\nline three\n');
  });

  it('says how often an ambiguous old_string occurs, and replaces all on request', async () => {
    expect(await fails('edit_file', { path: 'notes.txt', old_string: 'line', new_string: 'row' })).toMatch(
      /occurs 3 times in "notes.txt".*replace_all/,
    );
    expect(
      await ok('edit_file', { path: 'notes.txt', old_string: 'line', new_string: '$&', replace_all: true }),
    ).toBe('Replaced 3 occurrences in "notes.txt".');
    expect(await inWorkspace('notes.txt')).toBe('$& one\n$& two\n$& three\n');
  });

  it('refuses a missing old_string and a missing file', async () => {
    expect(await fails('edit_file', { path: 'notes.txt', old_string: 'line four', new_string: 'x' })).toMatch(
      /old_string was not found in "notes.txt"/,
    );
    expect(await fails('edit_file', { path: 'notes.txt', old_string: '', new_string: 'x' })).toMatch(/empty/);
    expect(await fails('edit_file', { path: 'ghost.txt', old_string: 'a', new_string: 'b' })).toBe(
      '"ghost.txt" does not exist.',
    );
  });
});

describe('list_directory', () => {
  it('lists the workspace by default, folders with "/", files with sizes, sorted', async () => {
    await symlink('notes.txt', path.join(box.workspace, 'link'));
    expect(await ok('list_directory', {})).toBe(
      '".": 3 entries\nlink (symbolic link)\nnotes.txt (29 B)\nsrc/',
    );
    expect(await ok('list_directory', { path: 'src' })).toBe('"src": 1 entry\nmain.ts (26 B)');
    expect(await ok('list_directory', { path: box.peers })).toContain('agent_b/');
    await mkdir(path.join(box.workspace, 'void'));
    expect(await ok('list_directory', { path: 'void' })).toBe('"void" is empty.');
    expect(await fails('list_directory', { path: 'notes.txt' })).toMatch(/is a file, not a folder/);
    expect(await fails('list_directory', { path: 'nowhere' })).toBe('"nowhere" does not exist.');
  });
});

describe('delete_file', () => {
  it('deletes files this agent created or read, and nothing else', async () => {
    await ok('write_file', { path: 'tmp.txt', content: 'x' });
    expect(await ok('delete_file', { path: 'tmp.txt' })).toBe('Deleted "tmp.txt".');
    await expect(stat(path.join(box.workspace, 'tmp.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    expect(await fails('delete_file', { path: 'notes.txt' })).toMatch(/neither created nor read by you/);
    await ok('read_file', { path: 'notes.txt' });
    expect(await ok('delete_file', { path: 'notes.txt' })).toBe('Deleted "notes.txt".');

    expect(await fails('delete_file', { path: 'src' })).toMatch(
      /is a folder; delete_file deletes files only/,
    );
    expect(await fails('delete_file', { path: 'gone.txt' })).toBe('"gone.txt" does not exist.');
  });

  it('does not count an overwritten file as created', async () => {
    await ok('write_file', { path: 'src/main.ts', content: 'x' });
    expect(await fails('delete_file', { path: 'src/main.ts' })).toMatch(/neither created nor read/);
  });
});

describe('copy_file', () => {
  it('copies a peer file into the workspace, creating parents; the copy may be deleted', async () => {
    const source = path.join(box.peers, 'agent_b/answer.md');
    expect(await ok('copy_file', { source, destination: 'from-b/answer.md' })).toBe(
      `Copied ${JSON.stringify(source)} to "from-b/answer.md".`,
    );
    expect(await inWorkspace('from-b/answer.md')).toBe('# Agent B\n\nThe answer is 41.\n');
    expect(await ok('delete_file', { path: 'from-b/answer.md' })).toBe('Deleted "from-b/answer.md".');
  });

  it('copies folders recursively, skipping symlinks inside them', async () => {
    await symlink(box.fixture, path.join(box.contextWrite, 'locked/escape'));
    expect(await ok('copy_file', { source: box.contextWrite, destination: 'ctx-copy' })).toBe(
      `Copied ${JSON.stringify(box.contextWrite)} to "ctx-copy" (3 files, 2 folders; skipped 1 symbolic link or special file).`,
    );
    expect(await inWorkspace('ctx-copy/locked/config.yaml')).toBe('keep: true\n');
    expect(await ok('list_directory', { path: 'ctx-copy/locked' })).toBe(
      '"ctx-copy/locked": 1 entry\nconfig.yaml (11 B)',
    );
  });

  it('replaces a file, but not a folder, and refuses a folder into itself', async () => {
    await ok('copy_file', { source: 'notes.txt', destination: 'src/main.ts' });
    expect(await inWorkspace('src/main.ts')).toBe('line one\nline two\nline three\n');
    expect(await fails('copy_file', { source: 'notes.txt', destination: 'src' })).toMatch(
      /"src" is a folder; give the full destination file path, e.g. "src\/notes.txt"/,
    );
    expect(await fails('copy_file', { source: box.peers, destination: 'src' })).toMatch(/already exists/);
    expect(await fails('copy_file', { source: 'src', destination: 'src/inner' })).toMatch(/into itself/);
    expect(await fails('copy_file', { source: 'missing.txt', destination: 'x.txt' })).toBe(
      '"missing.txt" does not exist.',
    );
  });
});

describe('through the agent tool registry', () => {
  it('validates arguments and passes the phase to the permission check', async () => {
    const registry = createAgentToolRegistry({ providers: [fs], timeoutMs: 5_000, maxResultChars: 10_000 });
    const context = fsContext('presentation');
    const bad = await registry.execute({ id: '1', name: 'write_file', arguments: { path: 'x' } }, context);
    expect(bad.isError).toBe(true);
    const write = await registry.execute(
      {
        id: '2',
        name: 'write_file',
        arguments: { path: path.join(box.contextWrite, 'final.md'), content: 'done' },
      },
      context,
    );
    expect(write).toEqual({
      content: `Created ${JSON.stringify(path.join(box.contextWrite, 'final.md'))} (4 bytes).`,
      isError: false,
    });
  });

  it('rejects unknown tool names', async () => {
    await expect(fs.call('rm_rf', {}, fsContext())).rejects.toThrow(/no tool named "rm_rf"/);
  });
});
