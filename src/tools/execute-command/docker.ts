import { execFile } from 'node:child_process';
import { findExecutable } from '../../util/find-executable.js';
import { dockerClientEnv } from './scrub-env.js';

/** `execution_mode: docker` settings. */
export interface DockerSettings {
  image: string;
  /** Docker's `--memory`, e.g. `2g`. */
  memory?: string;
  /** Docker's `--cpus`. */
  cpus?: number;
  /** Network access inside the container. */
  network: boolean;
}

/** Where the workspace is mounted inside the container (and the command's starting folder). */
export const CONTAINER_WORKSPACE = '/workspace';

export { findExecutable };

export interface DockerRunOptions {
  command: string;
  /** Host folder mounted read-write at {@link CONTAINER_WORKSPACE}. */
  workspace: string;
  docker: DockerSettings;
  /** Container name, so it can be killed by name. */
  name: string;
  /** Who the command runs as (the host user, so files it creates are the user's); null: the image's user. */
  user: { uid: number; gid: number } | null;
  /** Variables for the command inside the container. */
  env?: Readonly<Record<string, string>>;
  /** The largest file the command may write (`--ulimit fsize`), in bytes. */
  maxFileSizeBytes?: number;
  /** The most processes the container may run (`--pids-limit`). Default 512. */
  maxProcesses?: number;
}

const PIDS_LIMIT = 512;

/**
 * The arguments of `docker run` for one command: removed when done, no network unless allowed,
 * memory and CPU limits, the workspace mounted at `/workspace` as the working folder, the host
 * user's ids, no extra privileges, `sh -c <command>`.
 */
export function dockerRunArgs(options: DockerRunOptions): string[] {
  const { docker } = options;
  if (options.workspace.includes(':') || options.workspace.includes(',')) {
    throw new Error(
      `The workspace path ${options.workspace} contains ":" or ",", which docker -v cannot mount.`,
    );
  }
  const args = ['run', '--rm', '-i', '--name', options.name];
  if (!docker.network) args.push('--network', 'none');
  if (docker.memory !== undefined) args.push('--memory', docker.memory);
  if (docker.cpus !== undefined) args.push('--cpus', String(docker.cpus));
  args.push(
    '--pids-limit',
    String(options.maxProcesses ?? PIDS_LIMIT),
    '--security-opt',
    'no-new-privileges',
    '--cap-drop',
    'ALL',
  );
  if (options.maxFileSizeBytes !== undefined) args.push('--ulimit', `fsize=${options.maxFileSizeBytes}`);
  args.push('-v', `${options.workspace}:${CONTAINER_WORKSPACE}`, '-w', CONTAINER_WORKSPACE);
  if (options.user !== null) args.push('--user', `${options.user.uid}:${options.user.gid}`);
  const env = { HOME: CONTAINER_WORKSPACE, ...options.env };
  for (const [name, value] of Object.entries(env)) args.push('-e', `${name}=${value}`);
  args.push(docker.image, 'sh', '-c', options.command);
  return args;
}

/** The host user's ids, where the platform has them. */
export function hostUser(): { uid: number; gid: number } | null {
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  return uid === undefined || gid === undefined ? null : { uid, gid };
}

const INFO_TIMEOUT_MS = 5_000;

function run(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean; error: string | null }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env, timeout: timeoutMs, killSignal: 'SIGKILL', windowsHide: true },
      (error, stdout, stderr) => {
        const failure = error as
          (NodeJS.ErrnoException & { killed?: boolean; code?: number | string }) | null;
        resolve({
          code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          stdout: String(stdout),
          stderr: String(stderr),
          timedOut: failure?.killed === true,
          error: failure !== null && typeof failure.code === 'string' ? failure.message : null,
        });
      },
    );
  });
}

/**
 * Whether a Docker engine can run containers here: `docker` on the PATH of `env`, and `docker info`
 * answering within a few seconds. The app turns a failure into a config error before the run starts.
 */
export async function dockerAvailable(
  env: Readonly<Record<string, string | undefined>>,
  options: { timeoutMs?: number } = {},
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const docker = findExecutable('docker', env.PATH);
  if (docker === null) return { ok: false, reason: 'the docker command is not on PATH' };
  const timeoutMs = options.timeoutMs ?? INFO_TIMEOUT_MS;
  const result = await run(
    docker,
    ['info', '--format', '{{.ServerVersion}}'],
    dockerClientEnv(env),
    timeoutMs,
  );
  if (result.timedOut)
    return { ok: false, reason: `"docker info" did not answer within ${timeoutMs / 1000} s` };
  if (result.error !== null) return { ok: false, reason: `"docker info" could not be run: ${result.error}` };
  if (result.code !== 0) {
    const detail = (result.stderr.trim() || result.stdout.trim()).split('\n').filter(Boolean).pop() ?? '';
    return { ok: false, reason: `"docker info" failed${detail === '' ? '' : `: ${detail}`}` };
  }
  return { ok: true };
}

/** Kills a container by name (best effort; it may already be gone). */
export async function dockerKill(docker: string, name: string, env: Record<string, string>): Promise<void> {
  await run(docker, ['kill', name], env, 10_000);
}
