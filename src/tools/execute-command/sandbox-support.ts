import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { findExecutable } from '../../util/find-executable.js';
import { bwrapArgs } from './sandbox.js';

/** Whether the OS sandbox can run here (bubblewrap, and util-linux's `prlimit` for its limits), and why not. */
export type SandboxSupport =
  { ok: true; bwrap: string; prlimit: string } | { ok: false; reason: string; hint: string };

let cached: { path: string | undefined; support: SandboxSupport } | null = null;

/**
 * Whether bubblewrap works on this machine with the flags every sandboxed command gets (a user
 * namespace, no capabilities, private pid/net/ipc namespaces, size-limited tmpfs): the binary is on
 * PATH, new enough, and allowed to create user namespaces (they may be disabled, or a container may
 * forbid them). Checked once per PATH.
 */
export function sandboxSupport(pathVariable: string | undefined): SandboxSupport {
  if (cached && cached.path === pathVariable) return cached.support;
  const support = probe(pathVariable);
  cached = { path: pathVariable, support };
  return support;
}

const USERNS_HINT =
  'allow user namespaces (sysctl user.max_user_namespaces=10000; Debian before 11: kernel.unprivileged_userns_clone=1; Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in Docker: --security-opt seccomp=unconfined), or use execution_mode: docker';

function probe(pathVariable: string | undefined): SandboxSupport {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `no OS sandbox is supported on ${process.platform} yet`,
      hint: 'use execution_mode: docker, or execution_mode: local to run commands unsandboxed',
    };
  }
  const bwrap = findExecutable('bwrap', pathVariable);
  if (bwrap === null) {
    return {
      ok: false,
      reason: 'bubblewrap (bwrap) is not installed',
      hint: 'install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or use execution_mode: docker',
    };
  }
  const found = findExecutable('prlimit', pathVariable);
  if (found === null) {
    return {
      ok: false,
      reason: "util-linux's prlimit is not installed (it sets the sandbox's process and file-size limits)",
      hint: 'install util-linux, or use execution_mode: docker',
    };
  }
  const prlimit = realpathSync(found);
  const tmp = os.tmpdir();
  const layout = { workspace: tmp, readOnly: [], writable: [], hidden: [], network: false };
  const trial = spawnSync(bwrap, [...bwrapArgs(layout), prlimit, '--nproc=64', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (trial.status === 0) return { ok: true, bwrap, prlimit };
  const why = (trial.stderr || trial.error?.message || `exit code ${trial.status}`).trim().split('\n')[0]!;
  if (/unknown option|unrecognized option/i.test(why)) {
    const version = spawnSync(bwrap, ['--version'], { encoding: 'utf8' }).stdout?.trim() || 'bubblewrap';
    return {
      ok: false,
      reason: `${version} is too old for massgen's sandbox (${why}; it needs 0.8 or newer)`,
      hint: 'upgrade bubblewrap (Debian 12, Ubuntu 24.04 and Fedora 38 have 0.8 or newer), or use execution_mode: docker',
    };
  }
  return {
    ok: false,
    reason: `bubblewrap cannot create a sandbox here (${why})`,
    hint: /namespace|uid map|Operation not permitted|Permission denied/i.test(why)
      ? USERNS_HINT
      : `run "bwrap --unshare-user --ro-bind / / true" to see why, or use execution_mode: docker`,
  };
}
