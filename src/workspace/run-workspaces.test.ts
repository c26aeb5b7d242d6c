import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunWorkspaces } from './run-workspaces.js';
import { SNAPSHOT_MAX_FILE_BYTES } from './snapshot-rule.js';

let project = '';
beforeEach(() => {
  project = mkdtempSync(path.join(tmpdir(), 'massgen-ws-'));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const agents = [
  { agentId: 'alice', anonymousId: 'agent1', cwd: 'ws_alice' },
  { agentId: 'bob', anonymousId: 'agent2', cwd: 'ws_bob' },
  { agentId: 'carol', anonymousId: 'agent3', cwd: null },
];
const create = () => RunWorkspaces.create({ massgenDir: path.join(project, '.massgen'), agents });

describe('RunWorkspaces', () => {
  it('creates one workspace per agent with a cwd, emptying what an earlier run left', async () => {
    const stale = path.join(project, '.massgen/workspaces/ws_alice');
    mkdirSync(stale, { recursive: true });
    writeFileSync(path.join(stale, 'old.txt'), 'old');
    const ws = await create();
    expect(ws.workspaceOf('alice')).toBe(path.join(project, '.massgen/workspaces/ws_alice'));
    expect(readdirSync(ws.workspaceOf('alice') as string)).toEqual([]);
    expect(ws.workspaceOf('carol')).toBeNull();
    expect(ws.peersDirOf('bob')).toBe(path.join(project, '.massgen/temp_workspaces/agent2'));
  });

  it('shows a snapshot per answer under the author anonymous id, leaving out what the rule excludes', async () => {
    const ws = await create();
    const alice = ws.workspaceOf('alice') as string;
    writeFileSync(path.join(alice, 'main.py'), 'print(1)');
    mkdirSync(path.join(alice, 'node_modules/pkg'), { recursive: true });
    writeFileSync(path.join(alice, 'node_modules/pkg/index.js'), 'x');
    mkdirSync(path.join(alice, '.harness-home/.claude'), { recursive: true });
    writeFileSync(path.join(alice, '.harness-home/.claude/.credentials.json'), 'secret');
    writeFileSync(path.join(alice, 'huge.bin'), Buffer.alloc(SNAPSHOT_MAX_FILE_BYTES + 1));
    symlinkSync('/etc/passwd', path.join(alice, 'link'));
    await ws.snapshot('alice', 'agent1.1');
    // The workspace itself is never touched by a snapshot.
    expect(readdirSync(alice).sort()).toEqual([
      '.harness-home',
      'huge.bin',
      'link',
      'main.py',
      'node_modules',
    ]);

    await ws.showPeers('bob', [{ agentId: 'alice', anonymousId: 'agent1', label: 'agent1.1' }]);
    const seen = path.join(ws.peersDirOf('bob') as string, 'agent1');
    expect(readdirSync(seen)).toEqual(['main.py']);

    // A revised answer replaces what the viewer saw; an older view keeps its files until refreshed.
    writeFileSync(path.join(alice, 'main.py'), 'print(2)');
    await ws.snapshot('alice', 'agent1.2');
    expect(readFileSync(path.join(seen, 'main.py'), 'utf8')).toBe('print(1)');
    await ws.showPeers('bob', [{ agentId: 'alice', anonymousId: 'agent1', label: 'agent1.2' }]);
    expect(readFileSync(path.join(seen, 'main.py'), 'utf8')).toBe('print(2)');
    // Agents without a workspace see nothing (they have no tools to read it with).
    await ws.showPeers('carol', [{ agentId: 'alice', anonymousId: 'agent1', label: 'agent1.2' }]);
    expect(existsSync(path.join(project, '.massgen/temp_workspaces/agent3'))).toBe(false);
  });

  it('rewrites the author workspace paths in an answer into the viewer view of them', async () => {
    const ws = await create();
    const alice = ws.workspaceOf('alice') as string;
    const text = `See ${alice}/main.py and ${alice}/docs/a.md.`;
    const peers = ws.peersDirOf('bob') as string;
    expect(ws.rewrite(text, 'alice', 'bob')).toBe(
      `See ${peers}/agent1/main.py and ${peers}/agent1/docs/a.md.`,
    );
    expect(ws.rewrite(text, 'alice', 'carol')).toBe(text);
  });

  it('describes the workspace, the peers and the context paths per phase', async () => {
    const ws = await RunWorkspaces.create({
      massgenDir: path.join(project, '.massgen'),
      agents,
      contextPaths: [{ path: '/data/site', permission: 'write', protectedPaths: ['/data/site/index.html'] }],
    });
    const coordination = ws.describe('alice', 'coordination') ?? '';
    expect(coordination).toContain(`WORKSPACE: ${ws.workspaceOf('alice')} is your workspace`);
    expect(coordination).toContain(`${ws.peersDirOf('alice')}/<agent id>/`);
    expect(coordination).toContain('- /data/site (read-only)');
    const presentation = ws.describe('alice', 'presentation') ?? '';
    expect(presentation).toContain(
      '- /data/site (you may write here now; never write /data/site/index.html)',
    );
    expect(ws.describe('carol', 'coordination')).toBeNull();
  });

  it('delivers the winner workspace and cleans the shared copies, keeping the workspaces', async () => {
    const ws = await create();
    writeFileSync(path.join(ws.workspaceOf('bob') as string, 'result.txt'), 'done');
    await ws.snapshot('bob', 'agent2.1');
    await ws.showPeers('alice', [{ agentId: 'bob', anonymousId: 'agent2', label: 'agent2.1' }]);
    const target = path.join(project, 'log/final/bob/workspace');
    expect(await ws.deliver('bob', target)).toBe(target);
    expect(readFileSync(path.join(target, 'result.txt'), 'utf8')).toBe('done');
    expect(await ws.deliver('carol', target)).toBeNull();
    await ws.dispose();
    expect(readdirSync(path.join(project, '.massgen/temp_workspaces'))).toEqual([]);
    expect(readdirSync(path.join(project, '.massgen/snapshots'))).toEqual([]);
    expect(existsSync(path.join(ws.workspaceOf('bob') as string, 'result.txt'))).toBe(true);
  });
});
