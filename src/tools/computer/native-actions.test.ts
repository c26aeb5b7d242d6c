import { describe, expect, it } from 'vitest';
import { nativeComputerTool, parseNativeAction } from './native-actions.js';

const screen = { width: 320, height: 200, maxWaitSeconds: 60 };
const parse = (args: Record<string, unknown>) => parseNativeAction(args, screen);

describe('the native computer tool', () => {
  it('is one `computer` tool marked native with the screen size, with a schema for other backends', () => {
    const tool = nativeComputerTool(320, 200);
    expect(tool).toMatchObject({
      name: 'computer',
      native: { kind: 'computer', displayWidthPx: 320, displayHeightPx: 200 },
      parameters: { type: 'object', required: ['action'] },
    });
  });

  it('turns actions into fixed xdotool argument lists, named with their target', () => {
    expect(parse({ action: 'left_click', coordinate: [120, 48] })).toEqual({
      action: 'left_click',
      label: 'left_click (120, 48)',
      steps: [
        {
          xdotool: [
            ['mousemove', '--sync', '120', '48'],
            ['click', '1'],
          ],
        },
      ],
      readsPointer: false,
    });
    expect(parse({ action: 'double_click', coordinate: [1, 2], text: 'shift' })).toMatchObject({
      steps: [
        { xdotool: [['keydown', '--', 'shift']] },
        {
          xdotool: [
            ['mousemove', '--sync', '1', '2'],
            ['click', '--repeat', '2', '1'],
          ],
        },
        { xdotool: [['keyup', '--', 'shift']] },
      ],
    });
    expect(parse({ action: 'key', text: 'ctrl+s Enter' })).toMatchObject({
      label: 'key ctrl+s Return',
      steps: [{ xdotool: [['key', '--', 'ctrl+s', 'Return']] }],
    });
    // Typed text is never an xdotool argument: it goes to xdotool's stdin.
    expect(parse({ action: 'type', text: 'hello exec rm -rf' })).toMatchObject({
      steps: [{ type: 'hello exec rm -rf' }],
    });
    expect(
      parse({ action: 'scroll', coordinate: [5, 5], scroll_direction: 'up', scroll_amount: 2 }),
    ).toMatchObject({
      label: 'scroll up ×2 (5, 5)',
      steps: [
        {
          xdotool: [
            ['mousemove', '--sync', '5', '5'],
            ['click', '--repeat', '2', '4'],
          ],
        },
      ],
    });
    expect(parse({ action: 'left_click_drag', start_coordinate: [1, 1], coordinate: [9, 9] })).toMatchObject({
      label: 'left_click_drag (1, 1) → (9, 9)',
    });
    expect(parse({ action: 'wait', duration: 0.5 })).toMatchObject({ steps: [{ sleepMs: 500 }] });
    expect(parse({ action: 'cursor_position' })).toMatchObject({ readsPointer: true, steps: [] });
    expect(parse({ action: 'screenshot' })).toMatchObject({ label: 'screenshot', steps: [] });
  });

  it('refuses what it cannot do safely, in one line the model can act on', () => {
    expect(parse({ action: 'left_click', coordinate: [320, 5] })).toMatch(/off the screen \(320×200/);
    expect(parse({ action: 'left_click', coordinate: [1.5, 5] })).toMatch(/whole numbers/);
    expect(parse({ action: 'key', text: 'ctrl+s; rm' })).toMatch(
      /^"s;" in "ctrl\+s;" is not a key: use X keysym/,
    );
    expect(parse({ action: 'key', text: 'a exec touch x' })).toMatch(/^"exec" is not a key/);
    expect(parse({ action: 'hold_key', text: 'shift type', duration: 1 })).toMatch(/^"type" is not a key/);
    expect(parse({ action: 'left_click', coordinate: [1, 1], text: 'ctrl exec' })).toMatch(
      /^"exec" is not a key/,
    );
    expect(parse({ action: 'type', text: 'a\0b' })).toMatch(/NUL/);
    expect(parse({ action: 'mouse_move' })).toMatch(/needs coordinate/);
    expect(parse({ action: 'type', text: '' })).toMatch(/needs text/);
    expect(parse({ action: 'wait', duration: 600 })).toMatch(/0 to 60 seconds/);
    expect(parse({ action: 'zoom', region: [0, 0, 10, 10] })).toMatch(/zoom is not available/);
    expect(parse({ action: 'format_disk' })).toMatch(/action must be one of/);
  });
});
