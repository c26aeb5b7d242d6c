import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandToolProvider } from './command-tool-provider.js';
import { dockerAvailable, dockerRunArgs, findExecutable } from './docker.js';

let root: string;
let ws: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'massgen-docker-')));
  ws = path.join(root, 'ws');
  await mkdir(ws);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A folder holding only a `docker` script with the given body. */
async function fakeDocker(name: string, body: string): Promise<string> {
  const bin = path.join(root, name);
  await mkdir(bin, { recursive: true });
  const file = path.join(bin, 'docker');
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return bin;
}

describe('dockerRunArgs', () => {
  it('builds a contained docker run', () => {
    const args = dockerRunArgs({
      command: 'echo "hi" && ls',
      workspace: '/home/me/ws',
      docker: { image: 'debian:bookworm-slim', memory: '2g', cpus: 1.5, network: false },
      name: 'massgen-exec-1',
      user: { uid: 1000, gid: 1000 },
      env: { LANG: 'C.UTF-8' },
    });
    expect(args.slice(0, 5)).toEqual(['run', '--rm', '-i', '--name', 'massgen-exec-1']);
    const pairs = (flag: string): string[] => args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
    expect(pairs('--network')).toEqual(['none']);
    expect(pairs('--memory')).toEqual(['2g']);
    expect(pairs('--cpus')).toEqual(['1.5']);
    expect(pairs('-v')).toEqual(['/home/me/ws:/workspace']);
    expect(pairs('-w')).toEqual(['/workspace']);
    expect(pairs('--user')).toEqual(['1000:1000']);
    expect(pairs('-e')).toEqual(['HOME=/workspace', 'LANG=C.UTF-8']);
    expect(args).toContain('no-new-privileges');
    expect(args.slice(-4)).toEqual(['debian:bookworm-slim', 'sh', '-c', 'echo "hi" && ls']);
  });

  it('leaves the network on when allowed, and limits out when not configured', () => {
    const args = dockerRunArgs({
      command: 'true',
      workspace: '/ws',
      docker: { image: 'alpine', network: true },
      name: 'n',
      user: null,
    });
    expect(args).not.toContain('--network');
    expect(args).not.toContain('--memory');
    expect(args).not.toContain('--user');
  });

  it('refuses workspaces docker -v cannot mount', () => {
    expect(() =>
      dockerRunArgs({
        command: 'true',
        workspace: '/a:b',
        docker: { image: 'x', network: false },
        name: 'n',
        user: null,
      }),
    ).toThrow(/cannot mount/);
  });
});

describe('dockerAvailable', () => {
  it('is unavailable when docker is not on PATH', async () => {
    const empty = path.join(root, 'empty-bin');
    await mkdir(empty, { recursive: true });
    expect(await dockerAvailable({ PATH: empty })).toEqual({
      ok: false,
      reason: 'the docker command is not on PATH',
    });
    expect(findExecutable('docker', empty)).toBeNull();
  });

  it('reports why docker info failed', async () => {
    const bin = await fakeDocker(
      'failing',
      'echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock." >&2; exit 1',
    );
    const result = await dockerAvailable({ PATH: bin });
    expect(result).toEqual({
      ok: false,
      reason: '"docker info" failed: Cannot connect to the Docker daemon at unix:///var/run/docker.sock.',
    });
  });

  it('gives up on an engine that does not answer', async () => {
    const bin = await fakeDocker('hanging', 'while :; do :; done');
    // The fake engine loops forever: the outcome says it was given up on, whatever the machine's load.
    const result = await dockerAvailable({ PATH: bin }, { timeoutMs: 300 });
    expect(result).toEqual({ ok: false, reason: '"docker info" did not answer within 0.3 s' });
  });

  it('is available when docker info succeeds', async () => {
    const bin = await fakeDocker('working', 'echo 28.2.2');
    expect(await dockerAvailable({ PATH: bin })).toEqual({ ok: true });
  });
});

describe('docker mode', () => {
  const context = () => ({
    agentId: 'a',
    phase: 'coordination' as const,
    signal: new AbortController().signal,
  });

  it('runs the command through docker run and kills the container on timeout', async () => {
    const log = path.join(root, 'docker-calls.log');
    // Records every call; `run` executes the last argument (the command) with sh, as the container would.
    const bin = await fakeDocker(
      'recording',
      `printf '%s\\n' "$*" >> '${log}'\nif [ "$1" = run ]; then for last; do :; done; exec sh -c "$last"; fi`,
    );
    const provider = createCommandToolProvider({
      workspace: ws,
      timeoutMs: 120_000,
      env: { PATH: `${bin}:/usr/bin:/bin`, OPENAI_API_KEY: 'sk-secret' },
      mode: 'docker',
      docker: { image: 'alpine:3', memory: '1g', cpus: 1, network: false },
    });
    expect(provider.tools()[0]!.description).toMatch(/Docker container \(alpine:3\).*network access is off/);

    const ok = await provider.call('execute_command', { command: 'echo inside' }, context());
    expect(ok).toEqual({ content: 'exit code 0 (docker)\ninside\n' });
    const runLine = (await readFile(log, 'utf8')).split('\n')[0]!;
    expect(runLine).toMatch(/^run --rm -i --name massgen-exec-\S+ --network none --memory 1g --cpus 1 /);
    expect(runLine).toContain(`-v ${ws}:/workspace -w /workspace`);
    expect(runLine).not.toContain('sk-secret');
    expect(runLine).toContain(`--ulimit fsize=${1024 ** 3}`);

    const slow = await provider.call(
      'execute_command',
      { command: 'sleep 1000', timeout_seconds: 1 },
      context(),
    );
    expect(slow.isError).toBe(true);
    expect(slow.content).toMatch(/^killed after 1s timeout/);
    const calls = (await readFile(log, 'utf8')).trim().split('\n');
    expect(calls.at(-1)).toMatch(/^kill massgen-exec-/);
    await provider.close();
  });

  it('fails the call when docker has gone missing', async () => {
    const provider = createCommandToolProvider({
      workspace: ws,
      env: { PATH: path.join(root, 'empty-bin') },
      mode: 'docker',
      docker: { image: 'alpine', network: false },
    });
    await expect(provider.call('execute_command', { command: 'true' }, context())).rejects.toThrow(
      /not on PATH/,
    );
  });
});
