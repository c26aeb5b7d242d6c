import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ToolContext } from '../../types/tool.js';
import { findExecutable } from '../../util/find-executable.js';
import { createComputerToolProvider } from './computer-tool-provider.js';
import { readPng } from '../../testing/png.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';

// Xvfb and the X app are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const missing = ['Xvfb', 'xdotool', 'xmessage'].filter((name) => !findExecutable(name, process.env.PATH));

/** A white window with a button "Go" at x 5..27, y 58..75; clicked, a red window titled "after". */
const CLICK_APP = [
  'xmessage -geometry 160x80+0+0 -title before -bg white -fg black -buttons Go:0 hello &&',
  '  exec xmessage -geometry 160x80+0+0 -title after -bg red -fg black -buttons Done:0 clicked',
].join('\n');

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const context: ToolContext = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };

describe('the native computer tool on a virtual desktop', () => {
  it.skipIf(missing.length > 0)(
    `offers one computer tool and runs its actions, each answered with a screenshot${missing.length > 0 ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`,
    async () => {
      const workspace = mkdtempSync(path.join(os.tmpdir(), 'computer-native-'));
      dirs.push(workspace);
      writeFileSync(path.join(workspace, 'app.sh'), CLICK_APP);
      const provider = createComputerToolProvider({
        workspace,
        width: 320,
        height: 200,
        xvfb: findExecutable('Xvfb', process.env.PATH)!,
        xdotool: findExecutable('xdotool', process.env.PATH)!,
        env: process.env,
        // The app is the test's own; the sandbox is covered by the generic tools' test.
        sandbox: 'unsandboxed',
        native: true,
      });
      await provider.start({ signal: new AbortController().signal, report: () => {} });
      onTestFinished(() => provider.close());
      expect(provider.tools().map((t) => t.name)).toEqual(['computer', 'computer_launch', 'computer_wait']);
      expect(provider.tools()[0]!.native).toEqual({
        kind: 'computer',
        displayWidthPx: 320,
        displayHeightPx: 200,
      });

      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await provider.call(name, args, context);
        expect(result.isError ?? false, result.content).toBe(false);
        return result;
      };
      await call('computer_launch', { command: 'sh app.sh' });
      await call('computer_wait', { window: '^before$' });
      const before = await call('computer', { action: 'screenshot' });
      expect(before.content).toBe('screenshot: .computer/screenshots/001.png');
      expect(before.media?.map((m) => [m.path, m.mediaType])).toEqual([
        ['.computer/screenshots/001.png', 'image/png'],
      ]);
      expect(readPng(Buffer.from(before.media![0]!.data)).pixel(140, 30)).toEqual([255, 255, 255]);

      const clicked = await call('computer', { action: 'left_click', coordinate: [16, 66] });
      expect(clicked.content).toBe('left_click (16, 66); screenshot: .computer/screenshots/002.png');
      expect(clicked.media).toHaveLength(1);
      await call('computer_wait', { window: '^after$' });
      const after = await call('computer', { action: 'screenshot' });
      expect(readPng(Buffer.from(after.media![0]!.data)).pixel(140, 30)).toEqual([255, 0, 0]);

      expect(await call('computer', { action: 'mouse_move', coordinate: [40, 50] })).toMatchObject({
        content: 'mouse_move (40, 50); screenshot: .computer/screenshots/004.png',
      });
      const pointer = await call('computer', { action: 'cursor_position' });
      expect(pointer).toEqual({ content: 'X=40,Y=50' });

      expect(
        await provider.call('computer', { action: 'left_click', coordinate: [400, 5] }, context),
      ).toMatchObject({
        isError: true,
        content: expect.stringMatching(/off the screen/),
      });
      // The generic tools are not there to call.
      expect((await provider.call('computer_click', { x: 1, y: 1 }, context)).isError).toBe(true);
    },
    60_000,
  );
});
