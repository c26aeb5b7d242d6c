import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommandToolProvider, formatSeconds } from './command-tool-provider.js';

let root: string;
let ws: string;
let elsewhere: string;

const context = () => ({
  agentId: 'a',
  phase: 'coordination' as const,
  signal: new AbortController().signal,
});

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'massgen-cmd-')));
  ws = path.join(root, 'ws');
  elsewhere = path.join(root, 'elsewhere');
  await mkdir(ws);
  await mkdir(elsewhere);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createCommandToolProvider', () => {
  it('offers execute_command, marked destructive, describing its limits', () => {
    const provider = createCommandToolProvider({
      workspace: ws,
      timeoutMs: 30_000,
      env: {},
      mode: 'local',
    });
    const [tool] = provider.tools();
    expect(tool?.name).toBe('execute_command');
    expect(tool?.annotations).toEqual({ readOnly: false, destructive: true });
    expect(tool?.description).toMatch(/on this machine/);
    expect(tool?.parameters).toMatchObject({ required: ['command'], additionalProperties: false });
    expect(tool?.description).toContain(ws);
    expect(tool?.description).toMatch(/killed after 30s/);
    expect(tool?.description).toMatch(/truncated/);
    expect(tool?.description).toMatch(/refused/);
  });

  it('refuses a deny-listed command before running any of it', async () => {
    const provider = createCommandToolProvider({ workspace: ws, env: {}, mode: 'local' });
    const result = await provider.call('execute_command', { command: 'touch made && sudo ls' }, context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Command not run: .*sudo/);
    expect(existsSync(path.join(ws, 'made'))).toBe(false);
  });

  it('says on the status line where the command ran, and stops a file past the size limit', async () => {
    // The status line with the default limit: the total-growth bound watches the whole disk (statfs),
    // so a 1 MiB bound would also count what other programs write there meanwhile (a busy CI disk).
    const plain = createCommandToolProvider({ workspace: ws, env: { PATH: '/usr/bin:/bin' }, mode: 'local' });
    expect(await plain.call('execute_command', { command: 'echo hi' }, context())).toEqual({
      content: 'exit code 0 (local)\nhi\n',
    });
    const provider = createCommandToolProvider({
      workspace: ws,
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
      maxFileSizeBytes: 1024 * 1024,
    });
    const big = await provider.call('execute_command', { command: 'head -c 3M /dev/zero > big' }, context());
    expect(big.isError).toBe(true);
    expect(big.content).toMatch(/^stopped: the command tried to write a file larger than the 1 MiB limit/);
    const { size } = await stat(path.join(ws, 'big'));
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    await rm(path.join(ws, 'big'));
  });

  it('rejects unusable arguments with a message the model can act on', async () => {
    const provider = createCommandToolProvider({ workspace: ws, env: {}, mode: 'local' });
    expect(await provider.call('execute_command', { command: '  ' }, context())).toMatchObject({
      isError: true,
    });
    expect(await provider.call('execute_command', { command: 'x'.repeat(100_001) }, context())).toMatchObject(
      {
        isError: true,
        content: expect.stringMatching(/limit is 100000/),
      },
    );
    await expect(provider.call('other_tool', {}, context())).rejects.toThrow(/no tool named "other_tool"/);
  });

  it('does not use a .tmp that is a symlink for TMPDIR', async () => {
    const provider = createCommandToolProvider({
      workspace: ws,
      env: { PATH: '/usr/bin:/bin' },
      mode: 'local',
    });
    expect(await provider.call('execute_command', { command: 'echo "$TMPDIR"' }, context())).toEqual({
      content: `exit code 0 (local)\n${ws}/.tmp\n`,
    });
    await rm(path.join(ws, '.tmp'), { recursive: true });
    await symlink(elsewhere, path.join(ws, '.tmp'));
    expect(
      await provider.call(
        'execute_command',
        { command: 'echo "$TMPDIR"; x=$(mktemp) && rm "$x"' },
        context(),
      ),
    ).toEqual({
      content: `exit code 0 (local)\n${ws}\n`,
    });
    expect(await readdir(elsewhere)).toEqual([]);
    await rm(path.join(ws, '.tmp'));
  });

  it('reports a shell that cannot be started', async () => {
    const provider = createCommandToolProvider({
      workspace: ws,
      env: {},
      mode: 'local',
      shell: path.join(root, 'no-such-shell'),
    });
    const result = await provider.call('execute_command', { command: 'true' }, context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^The command could not be started: .*ENOENT/);
  });

  it('formats seconds', () => {
    expect([formatSeconds(1_000), formatSeconds(1_500), formatSeconds(120_000), formatSeconds(250)]).toEqual([
      '1s',
      '1.5s',
      '120s',
      '0.3s',
    ]);
  });
});
