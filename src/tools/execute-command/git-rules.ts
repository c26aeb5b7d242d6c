/** What git subcommands and settings can do: only read the repository, or run configured commands. */

/** Git subcommands that only read the repository. */
export const READ_ONLY_GIT = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'ls-remote',
  'rev-parse',
  'rev-list',
  'describe',
  'cat-file',
  'shortlog',
  'help',
  'version',
  'whatchanged',
  'name-rev',
  'merge-base',
  'for-each-ref',
  'show-ref',
  'var',
  'check-ignore',
  'diff-tree',
  'diff-files',
  'diff-index',
  'count-objects',
]);

/** Git configuration keys whose values are commands git runs later. */
export const GIT_COMMAND_CONFIG =
  /^(alias\.|core\.(pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass)$|sequence\.editor$|diff\.external$|pager\.|credential\.|gpg\.|.*\.(textconv|command|helper|program|process|clean|smudge|cmd|driver)$|uploadpack\.packobjectshook$|include\.|includeif\.)/i;
