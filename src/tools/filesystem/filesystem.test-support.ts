import { createHash } from 'node:crypto';
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Phase } from '../../types/events.js';
import type { ToolContext } from '../../types/tool.js';
import type { PathPolicy } from '../permissions/path-policy.js';

/**
 * A temporary tree for filesystem-permission tests, every folder in real form:
 *
 * ```
 * root/
 *   fixture/          outside everything the agent may use; must never change
 *     secret.txt  sub/deep.txt  sub/link-to-secret -> ../secret.txt
 *   ws1/              the agent's workspace: notes.txt, src/main.ts
 *   ws10/             a sibling whose name starts with the workspace's: other.txt
 *   peers/agent_b/    another agent's snapshot: answer.md
 *   ctx-write/        context path, permission write: report.md, LICENSE (protected), locked/ (protected)
 *   ctx-read/         context path, permission read: data.csv
 *   previous/         a read-only folder: old.md
 * ```
 */
export interface Sandbox {
  root: string;
  fixture: string;
  workspace: string;
  sibling: string;
  peers: string;
  contextWrite: string;
  contextRead: string;
  previous: string;
  policy: PathPolicy;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'massgen-fs-')));
  const at = (...parts: string[]) => path.join(root, ...parts);
  const files: Record<string, string> = {
    'fixture/secret.txt': 'top secret\n',
    'fixture/sub/deep.txt': 'deep secret\n',
    'ws1/notes.txt': 'line one\nline two\nline three\n',
    'ws1/src/main.ts': 'export const answer = 42;\n',
    'ws10/other.txt': 'not yours\n',
    'peers/agent_b/answer.md': '# Agent B\n\nThe answer is 41.\n',
    'ctx-write/report.md': '# Report\n',
    'ctx-write/LICENSE': 'Apache-2.0\n',
    'ctx-write/locked/config.yaml': 'keep: true\n',
    'ctx-read/data.csv': 'a,b\n1,2\n',
    'previous/old.md': 'previous winner\n',
  };
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(at(file)), { recursive: true });
    await writeFile(at(file), content);
  }
  await symlink('../secret.txt', at('fixture/sub/link-to-secret'));

  const policy: PathPolicy = {
    workspace: at('ws1'),
    peerSnapshots: at('peers'),
    contextPaths: [
      {
        path: at('ctx-write'),
        permission: 'write',
        protectedPaths: [at('ctx-write/LICENSE'), at('ctx-write/locked')],
      },
      { path: at('ctx-read'), permission: 'read', protectedPaths: [] },
    ],
    readOnly: [at('previous')],
  };
  return {
    root,
    fixture: at('fixture'),
    workspace: at('ws1'),
    sibling: at('ws10'),
    peers: at('peers'),
    contextWrite: at('ctx-write'),
    contextRead: at('ctx-read'),
    previous: at('previous'),
    policy,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * A digest of everything under `folder`: every entry's relative path and kind, files by the sha256 of
 * their content and their mode, symlinks by their target (never followed).
 */
export async function treeChecksum(folder: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (relative: string): Promise<void> => {
    const absolute = path.join(folder, relative);
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) {
      hash.update(`L ${relative} -> ${await readlink(absolute)}\n`);
    } else if (info.isDirectory()) {
      hash.update(`D ${relative} ${info.mode.toString(8)}\n`);
      const names = (await readdir(absolute)).sort();
      for (const name of names) await walk(path.join(relative, name));
    } else {
      const digest = createHash('sha256')
        .update(await readFile(absolute))
        .digest('hex');
      hash.update(`F ${relative} ${info.mode.toString(8)} ${digest}\n`);
    }
  };
  await walk('.');
  return hash.digest('hex');
}

/** A tool context in `phase` with a live signal. */
export function fsContext(phase: Phase = 'coordination', agentId = 'agent_a'): ToolContext {
  return { agentId, phase, signal: new AbortController().signal };
}
