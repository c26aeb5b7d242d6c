import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../filesystem/filesystem.test-support.js';
import { createPathChecker, isWithin, safeOpenForWrite } from './check-path.js';
import type { CheckPath, PathDecision } from './path-policy.js';

let box: Sandbox;
let check: CheckPath;
beforeEach(async () => {
  box = await makeSandbox();
  check = createPathChecker(box.policy);
});
afterEach(async () => {
  await box.cleanup();
});

function allowed(decision: PathDecision): string {
  if (!decision.allowed) throw new Error(`expected allowed, got: ${decision.reason}`);
  return decision.realPath;
}
function refused(decision: PathDecision): string {
  if (decision.allowed) throw new Error(`expected a refusal, got ${decision.realPath}`);
  return decision.reason;
}

describe('isWithin', () => {
  it('compares whole segments', () => {
    expect(isWithin('/a/ws1', '/a/ws1')).toBe(true);
    expect(isWithin('/a/ws1/x', '/a/ws1')).toBe(true);
    expect(isWithin('/a/ws10', '/a/ws1')).toBe(false);
    expect(isWithin('/a/ws10/x', '/a/ws1')).toBe(false);
    expect(isWithin('/a', '/a/ws1')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});

describe('createPathChecker', () => {
  it('resolves relative paths against the workspace, existing or not', async () => {
    expect(allowed(await check('notes.txt', 'read', 'coordination'))).toBe(
      path.join(box.workspace, 'notes.txt'),
    );
    expect(allowed(await check('./new/dir/file.md', 'write', 'coordination'))).toBe(
      path.join(box.workspace, 'new/dir/file.md'),
    );
    expect(allowed(await check('src/../notes.txt', 'write', 'coordination'))).toBe(
      path.join(box.workspace, 'notes.txt'),
    );
    expect(allowed(await check('.', 'read', 'coordination'))).toBe(box.workspace);
    expect(allowed(await check(box.workspace, 'write', 'coordination'))).toBe(box.workspace);
  });

  it('refuses empty paths, "~" and NUL bytes with a reason', async () => {
    expect(refused(await check('', 'read', 'coordination'))).toMatch(/empty/);
    expect(refused(await check('   ', 'read', 'coordination'))).toMatch(/empty/);
    expect(refused(await check('~/.ssh/id_rsa', 'read', 'coordination'))).toMatch(
      /"~\/\.ssh\/id_rsa" starts with "~"/,
    );
    expect(refused(await check('~', 'write', 'coordination'))).toMatch(/not expanded/);
    expect(refused(await check('notes.txt\0.png', 'read', 'coordination'))).toMatch(/NUL/);
  });

  it('names the path as given and the workspace when refusing a path outside', async () => {
    const reason = refused(await check('../fixture/secret.txt', 'read', 'coordination'));
    expect(reason).toBe(
      `"../fixture/secret.txt" is outside your workspace and the folders you may use (workspace: ${box.workspace}).`,
    );
  });

  it('allows reading every granted folder and writing only the workspace while coordinating', async () => {
    const targets = [
      path.join(box.peers, 'agent_b/answer.md'),
      path.join(box.contextWrite, 'report.md'),
      path.join(box.contextRead, 'data.csv'),
      path.join(box.previous, 'old.md'),
    ];
    for (const target of targets) {
      expect(allowed(await check(target, 'read', 'coordination'))).toBe(target);
      expect(refused(await check(target, 'write', 'coordination'))).toContain(JSON.stringify(target));
    }
  });

  it('gives a reason fitting each read-only area', async () => {
    const phase = 'presentation';
    expect(refused(await check(path.join(box.peers, 'agent_b/x.md'), 'write', phase))).toMatch(
      /another agent's snapshot \(read-only\); copy it into your workspace with copy_file first/,
    );
    expect(refused(await check(path.join(box.contextRead, 'data.csv'), 'write', phase))).toMatch(
      /read-only context path \(permission: read\)/,
    );
    expect(refused(await check(path.join(box.previous, 'new.md'), 'write', phase))).toMatch(
      /read-only folder/,
    );
    expect(refused(await check(path.join(box.contextWrite, 'report.md'), 'write', 'coordination'))).toMatch(
      /context path that is read-only while the agents coordinate; only the final presenter may write it/,
    );
  });

  it('lets the presenter write a write context path except its protected paths', async () => {
    const report = path.join(box.contextWrite, 'report.md');
    expect(allowed(await check(report, 'write', 'presentation'))).toBe(report);
    expect(
      allowed(await check(path.join(box.contextWrite, 'new/file.md'), 'write', 'presentation')),
    ).toBeTruthy();
    for (const target of ['LICENSE', 'locked', 'locked/config.yaml', 'locked/new.txt']) {
      const reason = refused(await check(path.join(box.contextWrite, target), 'write', 'presentation'));
      expect(reason).toMatch(/is protected \(protected_paths\) and may not be written/);
    }
    expect(allowed(await check(path.join(box.contextWrite, 'LICENSE'), 'read', 'coordination'))).toBeTruthy();
  });

  it('judges symlinks by their real target', async () => {
    await symlink(box.fixture, path.join(box.workspace, 'escape'));
    await symlink(path.join(box.workspace, 'notes.txt'), path.join(box.workspace, 'alias.txt'));
    const reason = refused(await check('escape/secret.txt', 'read', 'coordination'));
    expect(reason).toContain(
      `"escape/secret.txt" (which resolves to ${path.join(box.fixture, 'secret.txt')})`,
    );
    expect(refused(await check('escape/brand-new.txt', 'write', 'coordination'))).toMatch(
      /outside your workspace/,
    );
    expect(allowed(await check('alias.txt', 'write', 'coordination'))).toBe(
      path.join(box.workspace, 'notes.txt'),
    );
    // `..` after a symlink goes up from its target, as the OS does it.
    expect(refused(await check('escape/sub/../secret.txt', 'read', 'coordination'))).toMatch(/outside/);
    expect(refused(await check('escape/nothing/../secret.txt', 'read', 'coordination'))).toMatch(
      /outside|"\.\."/,
    );
  });

  it('follows a dangling symlink to where a create would land', async () => {
    await symlink(path.join(box.fixture, 'planted.txt'), path.join(box.workspace, 'dangling'));
    await symlink(path.join(box.workspace, 'later.txt'), path.join(box.workspace, 'dangling-in'));
    expect(refused(await check('dangling', 'write', 'coordination'))).toMatch(/outside your workspace/);
    expect(allowed(await check('dangling-in', 'write', 'coordination'))).toBe(
      path.join(box.workspace, 'later.txt'),
    );
  });

  it('refuses symlink loops and ".." after missing folders', async () => {
    await symlink('loop-b', path.join(box.workspace, 'loop-a'));
    await symlink('loop-a', path.join(box.workspace, 'loop-b'));
    expect(refused(await check('loop-a', 'read', 'coordination'))).toMatch(/symbolic links/);
    expect(refused(await check('missing/../../fixture/x', 'write', 'coordination'))).toMatch(
      /"\.\." after "missing", which does not exist/,
    );
  });

  it('does not confuse a sibling sharing the workspace prefix', async () => {
    expect(refused(await check(path.join(box.sibling, 'other.txt'), 'read', 'coordination'))).toMatch(
      /outside/,
    );
    expect(refused(await check('../ws10/other.txt', 'write', 'presentation'))).toMatch(/outside/);
  });

  it('lets the innermost folder decide when folders nest', async () => {
    const nested = createPathChecker({
      ...box.policy,
      contextPaths: [{ path: box.root, permission: 'read', protectedPaths: [] }],
    });
    expect(allowed(await nested(path.join(box.workspace, 'x.md'), 'write', 'coordination'))).toBeTruthy();
    expect(allowed(await nested(path.join(box.fixture, 'secret.txt'), 'read', 'coordination'))).toBeTruthy();
    expect(refused(await nested(path.join(box.fixture, 'secret.txt'), 'write', 'presentation'))).toMatch(
      /permission: read/,
    );
  });

  it('a context path that is a file gives that file alone (MassGen allows file context paths)', async () => {
    const file = path.join(box.fixture, 'secret.txt');
    const single = createPathChecker({
      ...box.policy,
      contextPaths: [{ path: file, permission: 'write', protectedPaths: [] }],
    });
    expect(allowed(await single(file, 'read', 'coordination'))).toBeTruthy();
    expect(allowed(await single(file, 'write', 'presentation'))).toBeTruthy();
    expect(refused(await single(file, 'write', 'coordination'))).toBeTruthy();
    const sibling = path.join(box.fixture, 'sibling.txt');
    await writeFile(sibling, 'not shared');
    expect(refused(await single(sibling, 'read', 'coordination'))).toMatch(/outside/);
  });

  it('resolves policy folders that are given through a symlink', async () => {
    const linkToRoot = path.join(box.root, 'root-link');
    await symlink(box.root, linkToRoot);
    const viaLink = createPathChecker({ ...box.policy, workspace: path.join(linkToRoot, 'ws1') });
    expect(allowed(await viaLink('notes.txt', 'write', 'coordination'))).toBe(
      path.join(box.workspace, 'notes.txt'),
    );
  });
});

describe('denied paths', () => {
  it('refuses what `denied` names by its real path, for reading and writing, through any link', async () => {
    const secret = path.join(box.contextRead, 'data.csv');
    const denying = createPathChecker({
      ...box.policy,
      denied: (real) =>
        real === secret
          ? { why: 'may not be read or written by any tool: rule r denies it', byRule: true }
          : real === path.join(box.workspace, 'notes.txt')
            ? { why: 'is a .env file massgen loaded keys from; no tool may use it', byRule: false }
            : null,
    });
    await symlink(secret, path.join(box.workspace, 'innocent.txt'));
    await symlink(box.contextRead, path.join(box.workspace, 'ctx'));
    for (const given of [secret, 'innocent.txt', 'ctx/data.csv', './ctx//./data.csv']) {
      for (const access of ['read', 'write'] as const) {
        const decision = await denying(given, access, 'presentation');
        expect(decision).toMatchObject({ allowed: false, byRule: true });
        expect(refused(decision)).toMatch(/may not be read or written by any tool: rule r denies it\.$/);
      }
    }
    const env = await denying('notes.txt', 'read', 'coordination');
    expect(env).toEqual({
      allowed: false,
      reason: '"notes.txt" is a .env file massgen loaded keys from; no tool may use it.',
    });
    expect(allowed(await denying('src/main.ts', 'read', 'coordination'))).toBe(
      path.join(box.workspace, 'src/main.ts'),
    );
  });
});

describe('safeOpenForWrite', () => {
  it('creates, then truncates and reports whether it created', async () => {
    const target = path.join(box.workspace, 'out.txt');
    const first = await safeOpenForWrite(target);
    await first.handle.writeFile('long content');
    await first.handle.close();
    expect(first.created).toBe(true);
    const second = await safeOpenForWrite(target);
    await second.handle.writeFile('short');
    await second.handle.close();
    expect(second.created).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('short');
  });

  it('fails with ELOOP when a symlink is swapped in before the open', async () => {
    const target = path.join(box.workspace, 'notes.txt');
    const secret = path.join(box.fixture, 'secret.txt');
    const swap = async () => {
      await rm(target);
      await symlink(secret, target);
    };
    await expect(safeOpenForWrite(target, { beforeOpen: swap })).rejects.toMatchObject({ code: 'ELOOP' });
    expect(await readFile(secret, 'utf8')).toBe('top secret\n');
  });

  it('refuses to truncate when a folder on the way became a symlink', async () => {
    const folder = path.join(box.workspace, 'dir');
    await mkdir(folder);
    await writeFile(path.join(folder, 'secret.txt'), 'mine');
    const swap = async () => {
      await rm(folder, { recursive: true });
      await symlink(box.fixture, folder);
    };
    await expect(
      safeOpenForWrite(path.join(folder, 'secret.txt'), { beforeOpen: swap }),
    ).rejects.toMatchObject({
      code: 'ELOOP',
    });
    expect(await readFile(path.join(box.fixture, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });
});
