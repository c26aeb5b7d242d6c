import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sandboxSupport } from '../execute-command/sandbox-support.js';
import { missingPrograms, startTestDesktop, testContext as context } from './desktop.test-support.js';
import { readPng } from '../../testing/png.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';
import { waitUntil } from '../../../test/support/wait.js';

// Xvfb and the X apps are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const missing = missingPrograms('Xvfb', 'xdotool', 'xmessage');
const support = sandboxSupport(process.env.PATH);

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

/** This process's children running `program`, from /proc. */
function children(program: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(program);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const xvfbChildren = () => children('Xvfb');

/** A desktop whose launched programs run in the sandbox or not, closed when the test ends. */
async function desktop(sandbox: 'sandboxed' | 'unsandboxed') {
  const { provider, workspace } = await startTestDesktop({
    sandbox: (workspace) =>
      sandbox === 'sandboxed' && support.ok
        ? {
            bwrap: support.bwrap,
            layout: () => ({ workspace, readOnly: [], writable: [], hidden: [os.homedir()], network: false }),
          }
        : 'unsandboxed',
  });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await provider.call(name, args, context());
    expect(result.isError ?? false, result.content).toBe(false);
    return result.content;
  };
  return { provider, workspace, call };
}

/** Waits for a file a launched program writes (by renaming it into place once complete). */
async function waitForFile(file: string): Promise<string> {
  await waitUntil(() => existsSync(file), `${file} from a launched program`);
  return readFileSync(file, 'utf8');
}

/**
 * Launches the click app, clicks its button and checks the screenshots show the change; returns the
 * display number, the Xvfb server and the launched process, for the caller's checks.
 */
async function clickThrough({ provider, workspace, call }: Awaited<ReturnType<typeof desktop>>) {
  expect(provider.tools().map((t) => t.name)).toContain('computer_screenshot');
  const launched = await call('computer_launch', { command: 'sh app.sh' });
  const [, number, pid] = /desktop \(:(\d+)\), process (\d+)/.exec(launched)!;
  const servers = xvfbChildren();
  expect(servers).toHaveLength(1);
  const server = servers[0]!;
  expect(alive(server)).toBe(true);
  await call('computer_wait', { window: '^before$' });
  const before = JSON.parse(await call('computer_screenshot')) as { screenshot: string; width: number };
  expect(before).toMatchObject({ screenshot: '.computer/screenshots/001.png', width: 320, height: 200 });
  const first = readPng(readFileSync(path.join(workspace, before.screenshot)));
  expect(first.pixel(140, 30)).toEqual([255, 255, 255]);
  expect(first.pixel(300, 180)).toEqual([0, 0, 0]);
  // The picture goes to the model too, as media named by its workspace path.
  const shot = await provider.call('computer_screenshot', {}, context());
  const file = readFileSync(path.join(workspace, '.computer/screenshots/002.png'));
  expect(shot.media).toHaveLength(1);
  expect(shot.media![0]).toMatchObject({
    path: '.computer/screenshots/002.png',
    mediaType: 'image/png',
    kind: 'image',
    bytes: file.length,
  });
  expect(Buffer.from(shot.media![0]!.data).equals(file)).toBe(true);
  await call('computer_click', { x: 16, y: 66 });
  await call('computer_wait', { window: '^after$' });
  const after = JSON.parse(await call('computer_screenshot')) as { screenshot: string };
  const second = readPng(readFileSync(path.join(workspace, after.screenshot)));
  expect(second.pixel(140, 30)).toEqual([255, 0, 0]);
  return { number: number!, server, pid: Number(pid) };
}

/** Closes the desktop and checks nothing of it is left. */
async function closeAndCheck(
  { provider }: Awaited<ReturnType<typeof desktop>>,
  { number, server, pid }: Awaited<ReturnType<typeof clickThrough>>,
) {
  await provider.close();
  expect(alive(server)).toBe(false);
  expect(alive(pid)).toBe(false);
  expect(existsSync(`/tmp/.X11-unix/X${number}`)).toBe(false);
  const result = await provider.call('computer_screenshot', {}, context());
  expect(result.isError).toBe(true);
}

const noSandbox = support.ok ? '' : support.reason;

describe('computer tools on a virtual desktop', () => {
  it.skipIf(missing !== '' || !support.ok)(
    `launches an app in the sandbox, clicks its button, and the screenshot shows the change; the app sees only its own display; nothing is left after close${missing ? ` (skipped: ${missing} not installed)` : noSandbox ? ` (skipped: ${noSandbox})` : ''}`,
    async () => {
      const desk = await desktop('sandboxed');
      const launched = await clickThrough(desk);
      // A launched program sees this display's socket and nothing else of the X world.
      await desk.call('computer_launch', {
        command:
          'ls -A /tmp/.X11-unix > x11.tmp; xdpyinfo -display :0 >/dev/null 2>&1 || echo other-refused >> x11.tmp; mv x11.tmp x11.txt',
      });
      const seen = await waitForFile(path.join(desk.workspace, 'x11.txt'));
      expect(seen.split('\n').filter(Boolean)).toEqual(
        launched.number === '0' ? [`X${launched.number}`] : [`X${launched.number}`, 'other-refused'],
      );
      await closeAndCheck(desk, launched);
    },
  );

  it.skipIf(missing !== '')(
    `launches an app unsandboxed (execution_mode: local), clicks its button, and the screenshot shows the change; nothing is left after close${missing ? ` (skipped: ${missing} not installed)` : ''}`,
    async () => {
      const desk = await desktop('unsandboxed');
      const launched = await clickThrough(desk);
      // Unsandboxed means the host's view: the program runs in the workspace as this user.
      await desk.call('computer_launch', {
        command: 'pwd > where.tmp; id -u >> where.tmp; mv where.tmp where.txt',
      });
      const where = (await waitForFile(path.join(desk.workspace, 'where.txt'))).split('\n');
      expect(where.slice(0, 2)).toEqual([realpathSync(desk.workspace), String(process.getuid!())]);
      await closeAndCheck(desk, launched);
    },
  );

  it.skipIf(missing !== '')(
    `Xvfb, xdotool and launched programs never get the parent's secrets${missing ? ` (skipped: ${missing} not installed)` : ''}`,
    async () => {
      // In this process's own environment, as an API key in the shell that started massgen is.
      const secret = 'sk-massgen-computer-test-secret';
      process.env.MASSGEN_COMPUTER_TEST_API_KEY = secret;
      onTestFinished(() => {
        delete process.env.MASSGEN_COMPUTER_TEST_API_KEY;
      });
      const desk = await desktop('unsandboxed');
      const environ = (pid: number) =>
        readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
      const [server] = xvfbChildren();
      expect(environ(server!).join('\n')).not.toContain(secret);
      // Only what scrubEnv keeps, its home and temp folder its own.
      for (const variable of environ(server!))
        expect(variable).toMatch(/^(PATH|LANG|TERM|TZ|LC_[A-Z_]+|HOME|TMPDIR)=/);
      // A launched program's whole environment.
      await desk.call('computer_launch', { command: 'env > env.tmp; mv env.tmp env.txt' });
      const launched = await waitForFile(path.join(desk.workspace, 'env.txt'));
      expect(launched).toMatch(/^DISPLAY=:\d+$/m);
      expect(launched).not.toContain(secret);
      // xdotool's, read while `computer_wait` keeps it searching for a window that never comes.
      const stop = new AbortController();
      const waiting = desk.provider.call(
        'computer_wait',
        { window: '^never shown$', timeout_seconds: 60 },
        { ...context(), signal: stop.signal },
      );
      let searching: number[] = [];
      await waitUntil(() => (searching = children('xdotool')).length > 0, 'the xdotool search process');
      expect(searching).toHaveLength(1);
      const xdotoolEnv = environ(searching[0]!);
      stop.abort();
      await expect(waiting).rejects.toThrow();
      expect(xdotoolEnv).toContainEqual(expect.stringMatching(/^DISPLAY=:\d+$/));
      expect(xdotoolEnv.join('\n')).not.toContain(secret);
    },
  );

  it.skipIf(missingPrograms('Xvfb', 'xdotool') !== '')(
    `refuses bad arguments without touching the desktop${missingPrograms('Xvfb', 'xdotool') ? ` (skipped: ${missingPrograms('Xvfb', 'xdotool')} not installed)` : ''}`,
    async () => {
      const { provider } = await startTestDesktop({ width: 100, height: 100, sandbox: () => null });
      expect((await provider.call('computer_click', { x: 100, y: 5 }, context())).content).toMatch(
        /x must be/,
      );
      expect((await provider.call('computer_key', { keys: 'ctrl+s; rm' }, context())).content).toMatch(
        /^"s;" in "ctrl\+s;" is not a key/,
      );
      expect((await provider.call('computer_type', { text: 'a\0b' }, context())).content).toBe(
        'text must not contain a NUL character',
      );
      expect(await provider.call('computer_launch', { command: 'xeyes' }, context())).toMatchObject({
        isError: true,
        content: expect.stringMatching(/no sandbox/),
      });
      expect(await provider.call('computer_key', { keys: 'shift+a Return' }, context())).toEqual({
        content: 'pressed shift+a Return',
      });
    },
  );
});
