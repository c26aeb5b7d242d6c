import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ToolContext } from '../../types/tool.js';
import { findExecutable } from '../../util/find-executable.js';
import { sandboxSupport } from '../execute-command/sandbox-support.js';
import { createComputerToolProvider } from './computer-tool-provider.js';
import { readPng } from '../../testing/png.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';

// Chromium and Xvfb are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const xvfb = findExecutable('Xvfb', process.env.PATH);
const xdotool = findExecutable('xdotool', process.env.PATH);
const xmessage = findExecutable('xmessage', process.env.PATH);
const missing = [!xvfb && 'Xvfb', !xdotool && 'xdotool', !xmessage && 'xmessage'].filter(Boolean).join(', ');
const support = sandboxSupport(process.env.PATH);

/**
 * The test's X application: a white window with a button "Go"; clicking it replaces the window by a
 * red one titled "after". Without a window manager the geometry is exact: "Go" sits at 5..27, 58..75.
 */
export const CLICK_APP = [
  'xmessage -geometry 160x80+0+0 -title before -bg white -fg black -buttons Go:0 hello &&',
  '  exec xmessage -geometry 160x80+0+0 -title after -bg red -fg black -buttons Done:0 clicked',
].join('\n');

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const context = (): ToolContext => ({
  agentId: 'a',
  phase: 'coordination',
  signal: new AbortController().signal,
});

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

/** This process's Xvfb children, from /proc. */
function xvfbChildren(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('Xvfb');
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('computer tools on a virtual desktop', () => {
  it.skipIf(missing !== '')(
    `launches an app in the sandbox, clicks its button, and the screenshot shows the change; nothing is left after close${missing ? ` (skipped: ${missing} not installed)` : ''}`,
    async () => {
      const workspace = mkdtempSync(path.join(os.tmpdir(), 'computer-ws-'));
      dirs.push(workspace);
      writeFileSync(path.join(workspace, 'app.sh'), CLICK_APP);
      const provider = createComputerToolProvider({
        workspace,
        width: 320,
        height: 200,
        xvfb: xvfb!,
        xdotool: xdotool!,
        env: process.env,
        sandbox: support.ok
          ? {
              bwrap: support.bwrap,
              layout: () => ({
                workspace,
                readOnly: [],
                writable: [],
                hidden: [os.homedir()],
                network: false,
              }),
            }
          : 'unsandboxed',
      });
      await provider.start({ signal: new AbortController().signal, report: () => {} });
      // Closed again below (and checked); this only covers a failed expectation on the way.
      onTestFinished(() => provider.close());
      expect(provider.tools().map((t) => t.name)).toContain('computer_screenshot');
      const call = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await provider.call(name, args, context());
        expect(result.isError ?? false, result.content).toBe(false);
        return result.content;
      };
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
      // A launched program sees this display's socket and nothing else of the X world.
      if (support.ok) {
        await call('computer_launch', {
          command:
            'ls -A /tmp/.X11-unix > x11.tmp; xdpyinfo -display :0 >/dev/null 2>&1 || echo other-refused >> x11.tmp; mv x11.tmp x11.txt',
        });
        const seen = path.join(workspace, 'x11.txt');
        while (!existsSync(seen)) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(readFileSync(seen, 'utf8').split('\n').filter(Boolean)).toEqual(
          number === '0' ? [`X${number}`] : [`X${number}`, 'other-refused'],
        );
      }
      await provider.close();
      expect(alive(server)).toBe(false);
      expect(alive(Number(pid))).toBe(false);
      expect(existsSync(`/tmp/.X11-unix/X${number}`)).toBe(false);
      const result = await provider.call('computer_screenshot', {}, context());
      expect(result.isError).toBe(true);
    },
  );

  it.skipIf(!xvfb || !xdotool)(
    `refuses bad arguments without touching the desktop${!xvfb || !xdotool ? ' (skipped: Xvfb or xdotool not installed)' : ''}`,
    async () => {
      const workspace = mkdtempSync(path.join(os.tmpdir(), 'computer-ws-'));
      dirs.push(workspace);
      const provider = createComputerToolProvider({
        workspace,
        width: 100,
        height: 100,
        xvfb: xvfb!,
        xdotool: xdotool!,
        env: process.env,
        sandbox: null,
      });
      await provider.start({ signal: new AbortController().signal, report: () => {} });
      try {
        expect((await provider.call('computer_click', { x: 100, y: 5 }, context())).content).toMatch(
          /x must be/,
        );
        expect((await provider.call('computer_key', { keys: 'ctrl+s; rm' }, context())).content).toMatch(
          /not a key combination/,
        );
        expect(await provider.call('computer_launch', { command: 'xeyes' }, context())).toMatchObject({
          isError: true,
          content: expect.stringMatching(/no sandbox/),
        });
        expect(await provider.call('computer_key', { keys: 'shift+a Return' }, context())).toEqual({
          content: 'pressed shift+a Return',
        });
      } finally {
        await provider.close();
      }
    },
  );
});
