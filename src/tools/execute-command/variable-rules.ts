/** What the command analysis knows about shell and environment variables by name. */

/** Variables that change where the shell looks for files or run code at startup: never set. */
export const PROTECTED_VARS = new Set([
  'HOME',
  'CDPATH',
  'PWD',
  'OLDPWD',
  'BASH_ENV',
  'ENV',
  'PROMPT_COMMAND',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'BASH_LOADABLES_PATH',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_PARAMETERS',
  'GIT_TEMPLATE_DIR',
  'LD_PRELOAD',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
]);

/** Variables that other programs run as commands: their values are checked as commands. */
export const COMMAND_VARS = new Set([
  'EDITOR',
  'VISUAL',
  'PAGER',
  'MANPAGER',
  'GIT_EDITOR',
  'GIT_PAGER',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'GIT_EXTERNAL_DIFF',
  'GIT_SEQUENCE_EDITOR',
  'RSYNC_RSH',
  'BROWSER',
  'LESSOPEN',
  'LESSCLOSE',
  'SHELL',
  'CONFIG_SHELL',
  'MAKESHELL',
  'TAR_OPTIONS',
]);

/** Shell variables that always hold a number or a flag string (no `/`). */
export const NUMERIC_VARS = new Set([
  'RANDOM',
  'SRANDOM',
  'SECONDS',
  'EPOCHSECONDS',
  'LINENO',
  'PPID',
  'UID',
  'EUID',
  'BASHPID',
  'SHLVL',
  'COLUMNS',
  'LINES',
  'OPTIND',
  'HISTCMD',
]);

/** Variables naming folders programs write to. */
export const WRITE_VARS =
  /^(TMPDIR|TMP|TEMP|TEMPDIR|XDG_[A-Z]+_HOME|XDG_RUNTIME_DIR|GOPATH|GOCACHE|GOMODCACHE|CARGO_HOME|CARGO_TARGET_DIR|RUSTUP_HOME|PIP_CACHE_DIR|PIP_TARGET|PYTHONUSERBASE|npm_config_cache|npm_config_prefix|NPM_CONFIG_CACHE|NPM_CONFIG_PREFIX|DESTDIR|PREFIX)$/;
