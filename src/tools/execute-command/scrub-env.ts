/** Variables whose names suggest a secret; never passed to a command, whatever else is allowed. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

/** Used when the caller's environment has no PATH. */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const KEPT = /^(PATH|LANG|TERM|TZ|LC_[A-Z_]+)$/;

/**
 * The environment a command runs with: only PATH, LANG, LC_*, TERM and TZ from the caller's
 * environment (never anything that looks like a secret), HOME set to the workspace and TMPDIR to a
 * folder inside it. PATH keeps absolute folders only, so a command never picks up programs from
 * whatever folder it happens to be in.
 */
export function scrubEnv(
  env: Readonly<Record<string, string | undefined>>,
  folders: { home: string; tmpdir: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !KEPT.test(name) || SECRET_NAME.test(name)) continue;
    out[name] = value;
  }
  const path = (out.PATH ?? '')
    .split(':')
    .filter((dir) => dir.startsWith('/'))
    .join(':');
  out.PATH = path === '' ? DEFAULT_PATH : path;
  out.HOME = folders.home;
  out.TMPDIR = folders.tmpdir;
  return out;
}

/**
 * The environment of the `docker` client itself (not of the container): what it needs to find the
 * engine and its configuration, nothing that looks like a secret.
 */
export function dockerClientEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_NAME.test(name)) continue;
    if (/^(PATH|HOME|USER|LANG|TZ|XDG_RUNTIME_DIR|XDG_CONFIG_HOME|DOCKER_[A-Z_]+)$/.test(name))
      out[name] = value;
  }
  if (out.PATH === undefined) out.PATH = DEFAULT_PATH;
  return out;
}
