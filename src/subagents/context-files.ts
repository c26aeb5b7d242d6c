import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { MAX_CONTEXT_FILE_BYTES } from './spawn-arguments.js';
import { SubagentRefusal } from './subagent-errors.js';

/** A context file's bytes, as the child run's attachment. */
export interface ContextFile {
  name: string;
  data: Uint8Array;
}

/** True when `inner` is `outer` or inside it (both already resolved). */
function isInside(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Reads the files a task names from the spawning agent's workspace. A model can be talked into naming
 * any file (`../../etc/passwd`, a symbolic link it planted pointing out), so each path is resolved
 * through its links and must land inside the workspace; the file is then opened without following a
 * link (a link swapped in after the check is refused) and read up to a size bound.
 */
export async function readContextFiles(
  workspace: string | null,
  files: readonly string[],
): Promise<ContextFile[]> {
  if (files.length === 0) return [];
  if (workspace === null) {
    throw new SubagentRefusal(
      'context_files need a workspace, and this agent has none: put the text in the task instead',
    );
  }
  const root = await realpath(workspace);
  const out: ContextFile[] = [];
  for (const file of files) {
    const outside = new SubagentRefusal(
      `context file ${JSON.stringify(file)} is not inside your workspace: name files of your workspace by relative path`,
    );
    let real: string;
    try {
      real = await realpath(path.resolve(root, file));
    } catch {
      throw new SubagentRefusal(`context file ${JSON.stringify(file)} does not exist in your workspace`);
    }
    if (!isInside(root, real)) throw outside;
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => {
      throw outside;
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new SubagentRefusal(`context file ${JSON.stringify(file)} is not a file`);
      if (stat.size > MAX_CONTEXT_FILE_BYTES) {
        throw new SubagentRefusal(
          `context file ${JSON.stringify(file)} is ${stat.size} bytes, over the ${MAX_CONTEXT_FILE_BYTES}-byte limit: pass a smaller excerpt`,
        );
      }
      const data = new Uint8Array(await handle.readFile());
      out.push({ name: path.relative(root, real), data });
    } finally {
      await handle.close();
    }
  }
  return out;
}
