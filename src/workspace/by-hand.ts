/**
 * The commands that finish by hand what massgen did not bring back: see the winner's changes, apply
 * the chosen ones (plain `git apply`, which works beside uncommitted edits and refuses a path beyond a
 * symbolic link), then remove the kept checkout and branch. Paths are quoted for a POSIX shell.
 */

export interface ByHandInput {
  kind: 'worktree' | 'copy';
  /** The user's repository top (a worktree), or the user's folder (a copy). */
  top: string;
  /** A copy's private repository (`…/.git`), absent for a worktree. */
  gitDir?: string;
  base: string;
  branch: string;
  /** The kept checkout's folder. */
  root: string;
  /** The folder's place in the repository (posix, `''` for the top). */
  sub: string;
  /** Repository paths to apply; empty: every change in the folder. */
  paths: readonly string[];
  /** Repository paths of folders holding a repository of their own in the checkout. */
  nested: readonly string[];
  /** A copy's run folder, removed last. */
  runDir?: string;
}

/** `'…'`, with any `'` inside closed, escaped and reopened. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function byHandCommands(input: ByHandInput): string[] {
  const q = shellQuote;
  const scope = input.sub === '' ? '.' : input.sub;
  const which = (input.paths.length > 0 ? input.paths : [scope]).map(q).join(' ');
  if (input.kind === 'worktree') {
    return [
      `cd ${q(input.top)}`,
      `git diff ${input.base} ${q(input.branch)} -- ${q(scope)}   # what the winner changed`,
      `git diff --binary ${input.base} ${q(input.branch)} -- ${which} | git apply   # apply it (--reject keeps what does not fit in .rej files)`,
      ...input.nested.map(
        (folder) =>
          `cp -a ${q(`${input.root}/${folder}`)} ${q(folder)}   # a repository of its own, if you want it`,
      ),
      `git worktree remove --force ${q(input.root)} && git branch -D ${q(input.branch)}   # then remove the checkout`,
    ];
  }
  const gitDir = q(input.gitDir ?? '');
  return [
    `cd ${q(input.top)}`,
    `git --git-dir=${gitDir} diff ${input.base} ${q(input.branch)}   # what the winner changed`,
    `git --git-dir=${gitDir} diff --binary ${input.base} ${q(input.branch)} -- ${which} | git --git-dir=${gitDir} --work-tree=. apply   # apply it`,
    ...input.nested.map(
      (folder) =>
        `cp -a ${q(`${input.root}/${folder}`)} ${q(folder)}   # a repository of its own, if you want it`,
    ),
    `rm -rf ${q(input.runDir ?? input.root)}   # then remove the copy`,
  ];
}
