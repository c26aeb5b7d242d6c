import { describe, expect, it } from 'vitest';
import { missingPrograms, startTestDesktop, testContext } from './desktop.test-support.js';
import { readPng } from '../../testing/png.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';

// Xvfb and the X app are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const missing = missingPrograms('Xvfb', 'xdotool', 'xmessage');
const context = testContext();

describe('the native computer tool on a virtual desktop', () => {
  it.skipIf(missing !== '')(
    `offers one computer tool and runs its actions, each answered with a screenshot${missing ? ` (skipped: ${missing} not installed)` : ''}`,
    async () => {
      // The app is the test's own; the sandbox is covered by the generic tools' test.
      const { provider } = await startTestDesktop({ native: true });
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
  );
});
