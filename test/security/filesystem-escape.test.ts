/**
 * Attacks on the built-in filesystem tools and the path checker behind them, on real temporary folders.
 * Every attack must be refused (a tool error with a reason the model can act on) or contained, and the
 * folders the agent may not write — above all the fixture tree outside everything it may use — must be
 * byte-for-byte unchanged afterwards.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFilesystemToolProvider } from '../../src/tools/filesystem/index.js';
import {
  fsContext,
  makeSandbox,
  treeChecksum,
  type Sandbox,
} from '../../src/tools/filesystem/filesystem.test-support.js';
import { createPathChecker } from '../../src/tools/permissions/check-path.js';
import type { ToolProvider } from '../../src/tools/tool-provider.js';
import type { Phase } from '../../src/types/events.js';

let box: Sandbox;
/** Runs once between the permission check and the open of the next write (then clears itself). */
let swapBeforeOpen: ((realPath: string) => Promise<void>) | undefined;
let fs: ToolProvider;

beforeEach(async () => {
  box = await makeSandbox();
  swapBeforeOpen = undefined;
  fs = createFilesystemToolProvider({
    checkPath: createPathChecker(box.policy),
    workspace: box.workspace,
    beforeWriteOpen: async (realPath) => {
      const swap = swapBeforeOpen;
      swapBeforeOpen = undefined;
      await swap?.(realPath);
    },
  });
  // Planted inside the workspace: links to the fixture (a folder, a file, and a not-yet-existing file).
  await symlink(box.fixture, path.join(box.workspace, 'escape'));
  await symlink(path.join(box.fixture, 'secret.txt'), path.join(box.workspace, 'secret-link.txt'));
  await symlink(path.join(box.fixture, 'planted.txt'), path.join(box.workspace, 'dangling.txt'));
  await symlink(path.join(box.peers, 'agent_b'), path.join(box.workspace, 'peer-link'));
});
afterEach(async () => {
  await box.cleanup();
});

/** Checksums of every tree the agent must not change (the write context path only where protected). */
async function guarded(): Promise<Record<string, string>> {
  const trees = {
    fixture: box.fixture,
    peers: box.peers,
    sibling: box.sibling,
    contextRead: box.contextRead,
    previous: box.previous,
    protectedFolder: path.join(box.contextWrite, 'locked'),
  };
  const sums: Record<string, string> = {};
  for (const [name, folder] of Object.entries(trees)) sums[name] = await treeChecksum(folder);
  sums.protectedFile = await readFile(path.join(box.contextWrite, 'LICENSE'), 'utf8');
  return sums;
}

interface Attack {
  name: string;
  tool: string;
  args: () => Record<string, unknown>;
  phase?: Phase;
  /** What the refusal must say. */
  reason: RegExp;
  /** Runs before the attack (e.g. a read that makes delete_file's tracking apply). */
  prepare?: () => Promise<void>;
}

const outside = /outside your workspace and the folders you may use \(workspace: .*ws1\)/;
const secret = () => path.join(box.fixture, 'secret.txt');

const attacks: Attack[] = [
  // `..` at several depths, every tool.
  {
    name: 'read ../fixture',
    tool: 'read_file',
    args: () => ({ path: '../fixture/secret.txt' }),
    reason: outside,
  },
  {
    name: 'read deep ../../',
    tool: 'read_file',
    args: () => ({ path: `../../${path.basename(box.root)}/fixture/sub/deep.txt` }),
    reason: outside,
  },
  {
    name: 'read ../ past the root',
    tool: 'read_file',
    args: () => ({ path: '../'.repeat(40) + 'etc/passwd' }),
    reason: outside,
  },
  {
    name: 'read src/../../',
    tool: 'read_file',
    args: () => ({ path: 'src/../../fixture/secret.txt' }),
    reason: outside,
  },
  {
    name: 'write ../',
    tool: 'write_file',
    args: () => ({ path: '../fixture/secret.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write ../ new file, new folders',
    tool: 'write_file',
    args: () => ({ path: '../fixture/new/dir/x.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write ../ as presenter',
    tool: 'write_file',
    args: () => ({ path: '../../x.txt', content: 'pwned' }),
    phase: 'presentation',
    reason: outside,
  },
  {
    name: 'edit ../',
    tool: 'edit_file',
    args: () => ({ path: '../fixture/secret.txt', old_string: 'top', new_string: 'no' }),
    reason: outside,
  },
  { name: 'list ..', tool: 'list_directory', args: () => ({ path: '..' }), reason: outside },
  {
    name: 'delete ../',
    tool: 'delete_file',
    args: () => ({ path: '../fixture/secret.txt' }),
    reason: outside,
  },
  {
    name: 'copy from ../',
    tool: 'copy_file',
    args: () => ({ source: '../fixture', destination: 'loot' }),
    reason: outside,
  },
  // Absolute paths outside.
  { name: 'read absolute', tool: 'read_file', args: () => ({ path: secret() }), reason: outside },
  { name: 'read /etc/passwd', tool: 'read_file', args: () => ({ path: '/etc/passwd' }), reason: outside },
  {
    name: 'write absolute',
    tool: 'write_file',
    args: () => ({ path: secret(), content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'edit absolute',
    tool: 'edit_file',
    args: () => ({ path: secret(), old_string: 'top', new_string: 'no' }),
    reason: outside,
  },
  { name: 'list absolute', tool: 'list_directory', args: () => ({ path: box.fixture }), reason: outside },
  // Symlinks inside the workspace pointing out.
  {
    name: 'read through a folder link',
    tool: 'read_file',
    args: () => ({ path: 'escape/secret.txt' }),
    reason: /resolves to .*fixture.*outside/,
  },
  {
    name: 'read through a file link',
    tool: 'read_file',
    args: () => ({ path: 'secret-link.txt' }),
    reason: /resolves to .*fixture.*outside/,
  },
  {
    name: 'list through a folder link',
    tool: 'list_directory',
    args: () => ({ path: 'escape' }),
    reason: outside,
  },
  {
    name: 'write through a folder link',
    tool: 'write_file',
    args: () => ({ path: 'escape/secret.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write through a file link',
    tool: 'write_file',
    args: () => ({ path: 'secret-link.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write a new file under a linked folder',
    tool: 'write_file',
    args: () => ({ path: 'escape/sub/new-dir/new.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write through a dangling link',
    tool: 'write_file',
    args: () => ({ path: 'dangling.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'edit through a file link',
    tool: 'edit_file',
    args: () => ({ path: 'secret-link.txt', old_string: 'top', new_string: 'no' }),
    reason: outside,
  },
  {
    name: '.. after a link leaves from its target',
    tool: 'write_file',
    args: () => ({ path: 'escape/sub/../secret.txt', content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'copy out of a linked folder',
    tool: 'copy_file',
    args: () => ({ source: 'escape/secret.txt', destination: 'loot.txt' }),
    reason: outside,
  },
  {
    name: 'copy into a linked folder',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: 'escape/copied.txt' }),
    reason: outside,
  },
  {
    name: 'delete the target of a file link',
    tool: 'delete_file',
    args: () => ({ path: 'secret-link.txt' }),
    reason: outside,
  },
  // The other agents' snapshots and other read-only folders.
  {
    name: 'write into a peer snapshot',
    tool: 'write_file',
    args: () => ({ path: path.join(box.peers, 'agent_b/answer.md'), content: 'pwned' }),
    reason: /another agent's snapshot \(read-only\); copy it into your workspace with copy_file first/,
  },
  {
    name: 'write a new file into a peer snapshot as presenter',
    tool: 'write_file',
    args: () => ({ path: path.join(box.peers, 'agent_b/new.md'), content: 'pwned' }),
    phase: 'presentation',
    reason: /another agent's snapshot/,
  },
  {
    name: 'write into a peer snapshot through a workspace link',
    tool: 'write_file',
    args: () => ({ path: 'peer-link/answer.md', content: 'pwned' }),
    reason: /another agent's snapshot/,
  },
  {
    name: 'edit a peer snapshot',
    tool: 'edit_file',
    args: () => ({ path: path.join(box.peers, 'agent_b/answer.md'), old_string: '41', new_string: '42' }),
    reason: /another agent's snapshot/,
  },
  {
    name: 'delete a peer file after reading it',
    tool: 'delete_file',
    args: () => ({ path: path.join(box.peers, 'agent_b/answer.md') }),
    prepare: async () => {
      const read = await fs.call(
        'read_file',
        { path: path.join(box.peers, 'agent_b/answer.md') },
        fsContext(),
      );
      expect(read.isError).toBeFalsy();
    },
    reason: /another agent's snapshot/,
  },
  {
    name: 'copy into a peer snapshot',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: path.join(box.peers, 'agent_b/notes.txt') }),
    reason: /another agent's snapshot/,
  },
  {
    name: 'write the read-only previous workspace',
    tool: 'write_file',
    args: () => ({ path: path.join(box.previous, 'old.md'), content: 'pwned' }),
    phase: 'presentation',
    reason: /read-only folder/,
  },
  {
    name: 'write a read-permission context path as presenter',
    tool: 'write_file',
    args: () => ({ path: path.join(box.contextRead, 'data.csv'), content: 'pwned' }),
    phase: 'presentation',
    reason: /read-only context path \(permission: read\)/,
  },
  // Context paths: read-only while coordinating, protected paths always.
  {
    name: 'write a write context path while coordinating',
    tool: 'write_file',
    args: () => ({ path: path.join(box.contextWrite, 'report.md'), content: 'early' }),
    reason:
      /is in a context path that is read-only while the agents coordinate; only the final presenter may write it/,
  },
  {
    name: 'edit a write context path while coordinating',
    tool: 'edit_file',
    args: () => ({ path: path.join(box.contextWrite, 'report.md'), old_string: 'Report', new_string: 'X' }),
    reason: /read-only while the agents coordinate/,
  },
  {
    name: 'write a protected file as presenter',
    tool: 'write_file',
    args: () => ({ path: path.join(box.contextWrite, 'LICENSE'), content: 'MIT' }),
    phase: 'presentation',
    reason: /"[^"]*LICENSE" is protected \(protected_paths\) and may not be written/,
  },
  {
    name: 'edit a protected file as presenter',
    tool: 'edit_file',
    args: () => ({ path: path.join(box.contextWrite, 'LICENSE'), old_string: 'Apache', new_string: 'MIT' }),
    phase: 'presentation',
    reason: /is protected \(protected_paths\)/,
  },
  {
    name: 'write a new file in a protected folder as presenter',
    tool: 'write_file',
    args: () => ({ path: path.join(box.contextWrite, 'locked/new.yaml'), content: 'x' }),
    phase: 'presentation',
    reason: /is protected \(protected_paths\)/,
  },
  {
    name: 'delete a protected file after reading it, as presenter',
    tool: 'delete_file',
    args: () => ({ path: path.join(box.contextWrite, 'locked/config.yaml') }),
    phase: 'presentation',
    prepare: async () => {
      const file = path.join(box.contextWrite, 'locked/config.yaml');
      expect((await fs.call('read_file', { path: file }, fsContext('presentation'))).isError).toBeFalsy();
    },
    reason: /is protected \(protected_paths\)/,
  },
  // delete_file only for what this agent created or read.
  {
    name: 'delete a workspace file never created or read',
    tool: 'delete_file',
    args: () => ({ path: 'notes.txt' }),
    reason: /"notes.txt" was neither created nor read by you in this run/,
  },
  // copy_file writes only into the agent's own workspace.
  {
    name: 'copy to outside the workspace',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: '../fixture/notes.txt' }),
    reason: outside,
  },
  {
    name: 'copy to an absolute path outside',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: path.join(box.fixture, 'sub/notes.txt') }),
    reason: outside,
  },
  {
    name: 'copy into a writable context path as presenter',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: path.join(box.contextWrite, 'notes.txt') }),
    phase: 'presentation',
    reason: /is not inside your own workspace; copy_file copies into your workspace only/,
  },
  // Prefix confusion: ws10 is not inside ws1.
  { name: 'read ../ws10', tool: 'read_file', args: () => ({ path: '../ws10/other.txt' }), reason: outside },
  {
    name: 'write absolute ws10',
    tool: 'write_file',
    args: () => ({ path: path.join(box.sibling, 'other.txt'), content: 'pwned' }),
    reason: outside,
  },
  {
    name: 'write a new file in ws10',
    tool: 'write_file',
    args: () => ({ path: `${box.workspace}0/new.txt`, content: 'pwned' }),
    reason: outside,
  },
  { name: 'list ws10', tool: 'list_directory', args: () => ({ path: `${box.workspace}0` }), reason: outside },
  {
    name: 'copy into ws10',
    tool: 'copy_file',
    args: () => ({ source: 'notes.txt', destination: '../ws10/notes.txt' }),
    reason: outside,
  },
  // NUL bytes and `~`.
  {
    name: 'NUL byte truncation trick',
    tool: 'write_file',
    args: () => ({ path: `notes.txt\0../../fixture/secret.txt`, content: 'pwned' }),
    reason: /contains a NUL character/,
  },
  { name: 'NUL byte read', tool: 'read_file', args: () => ({ path: `${secret()}\0` }), reason: /NUL/ },
  {
    name: '~ read',
    tool: 'read_file',
    args: () => ({ path: '~/.ssh/id_rsa' }),
    reason: /starts with "~", which is not expanded/,
  },
  {
    name: '~user write',
    tool: 'write_file',
    args: () => ({ path: '~root/.bashrc', content: 'x' }),
    reason: /"~"/,
  },
  { name: 'empty path', tool: 'read_file', args: () => ({ path: '' }), reason: /empty/ },
];

describe('filesystem escape attempts are refused', () => {
  it.each(attacks)('$name ($tool)', async (attack) => {
    await attack.prepare?.();
    const before = await guarded();
    const result = await fs.call(attack.tool, attack.args(), fsContext(attack.phase ?? 'coordination'));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(attack.reason);
    expect(result.content).not.toContain('top secret');
    expect(await guarded()).toEqual(before);
  });
});

describe('symlinks swapped in after the check', () => {
  const swapTo = (target: string) => async (realPath: string) => {
    await rm(realPath, { recursive: true, force: true });
    await symlink(target, realPath);
  };

  it.each([
    {
      name: 'write_file over an existing file',
      tool: 'write_file',
      args: { path: 'notes.txt', content: 'pwned' },
    },
    {
      name: 'write_file creating a new file',
      tool: 'write_file',
      args: { path: 'fresh.txt', content: 'pwned' },
    },
    {
      name: 'edit_file',
      tool: 'edit_file',
      args: { path: 'notes.txt', old_string: 'line one', new_string: 'pwned' },
    },
    {
      name: 'copy_file',
      tool: 'copy_file',
      args: { source: 'src/main.ts', destination: 'copy.ts' },
    },
  ])('$name: a link to a fixture file at the last component makes the write fail', async ({ tool, args }) => {
    const before = await guarded();
    swapBeforeOpen = swapTo(secret());
    const result = await fs.call(tool, args, fsContext());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/replaced by a symbolic link while it was being used/);
    expect(await readFile(secret(), 'utf8')).toBe('top secret\n');
    expect(await guarded()).toEqual(before);
  });

  it('a folder on the way swapped for a link to the fixture: no write, no file left behind', async () => {
    await mkdir(path.join(box.workspace, 'out'));
    await writeFile(path.join(box.workspace, 'out/secret.txt'), 'mine');
    const before = await guarded();
    for (const file of ['out/secret.txt', 'out/brand-new.txt']) {
      swapBeforeOpen = async () => {
        await rm(path.join(box.workspace, 'out'), { recursive: true, force: true });
        await symlink(box.fixture, path.join(box.workspace, 'out'));
      };
      const result = await fs.call('write_file', { path: file, content: 'pwned' }, fsContext());
      expect(result.isError).toBe(true);
      expect(await guarded()).toEqual(before);
      await rm(path.join(box.workspace, 'out'));
      await mkdir(path.join(box.workspace, 'out'));
      await writeFile(path.join(box.workspace, 'out/secret.txt'), 'mine');
    }
  });
});

describe('special files', () => {
  it.skipIf(process.platform === 'win32')(
    'a FIFO planted in the workspace cannot hang read_file, write_file or copy_file',
    async () => {
      execFileSync('mkfifo', [path.join(box.workspace, 'pipe')]);
      for (const [tool, args] of [
        ['read_file', { path: 'pipe' }],
        ['write_file', { path: 'pipe', content: 'x' }],
        ['edit_file', { path: 'pipe', old_string: 'a', new_string: 'b' }],
        ['copy_file', { source: 'pipe', destination: 'pipe-copy' }],
      ] as const) {
        const result = await fs.call(tool, args, fsContext());
        expect(result.isError, tool).toBe(true);
        expect(result.content).toMatch(/"pipe" is not a regular file/);
      }
    },
  );
});

describe('positive controls: what is allowed still works', () => {
  const ok = async (tool: string, args: Record<string, unknown>, phase: Phase = 'coordination') => {
    const result = await fs.call(tool, args, fsContext(phase));
    expect(result.isError, result.content).toBeFalsy();
    return result.content;
  };

  it('the presenter may write a write context path (outside its protected paths)', async () => {
    const report = path.join(box.contextWrite, 'report.md');
    const before = await guarded();
    expect((await fs.call('write_file', { path: report, content: 'early' }, fsContext())).isError).toBe(true);
    expect(await ok('write_file', { path: report, content: '# Final\n' }, 'presentation')).toMatch(
      /^Overwrote/,
    );
    expect(await readFile(report, 'utf8')).toBe('# Final\n');
    expect(
      await ok('edit_file', { path: report, old_string: 'Final', new_string: 'Done' }, 'presentation'),
    ).toMatch(/Replaced 1/);
    expect(
      await ok(
        'write_file',
        { path: path.join(box.contextWrite, 'docs/new.md'), content: 'x' },
        'presentation',
      ),
    ).toMatch(/^Created/);
    expect(await guarded()).toEqual(before);
  });

  it('every tool works inside the workspace, and allowed folders can be read and copied in', async () => {
    const before = await guarded();
    await ok('write_file', { path: 'work/a.md', content: 'alpha\nbeta\n' });
    expect(await ok('read_file', { path: 'work/a.md' })).toContain('alpha\nbeta');
    await ok('edit_file', { path: 'work/a.md', old_string: 'beta', new_string: 'gamma' });
    expect(await ok('list_directory', { path: 'work' })).toContain('a.md');
    await ok('copy_file', { source: path.join(box.peers, 'agent_b'), destination: 'from-b' });
    await ok('copy_file', { source: path.join(box.contextRead, 'data.csv'), destination: 'data.csv' });
    await ok('copy_file', { source: '../previous/old.md', destination: 'old.md' });
    expect(await ok('read_file', { path: 'from-b/answer.md' })).toContain('41');
    await ok('delete_file', { path: 'work/a.md' });
    await ok('delete_file', { path: 'from-b/answer.md' });
    expect(await ok('read_file', { path: 'peer-link/answer.md' })).toContain('41');
    expect(await guarded()).toEqual(before);
  });
});
