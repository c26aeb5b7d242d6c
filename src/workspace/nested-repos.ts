import { git, type GitOptions } from './git.js';

/**
 * Folders holding a git repository of their own (an agent's `git init`, a clone) that git would add as
 * a gitlink — or refuse to add at all when the repository has no commit yet, failing the whole commit.
 * `git ls-files --others` names each such untracked folder with a trailing `/` instead of its files.
 */
export async function nestedRepositories(
  options: GitOptions,
  pathspecs: readonly string[] = ['.'],
): Promise<string[]> {
  const listed = await git(['ls-files', '--others', '--exclude-standard', '-z', '--', ...pathspecs], options);
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  return listed.stdout
    .split('\0')
    .filter((entry) => entry.endsWith('/'))
    .map((entry) => entry.slice(0, -1));
}

/** Pathspecs that leave those folders out of a `git add`. */
export const excluding = (folders: readonly string[]) =>
  folders.map((folder) => `:(exclude,literal)${folder}`);
