import type { ToolDefinition } from '../../types/messages.js';
import { parseKeys, type KeyChord } from './keys.js';
import type { XdotoolCommand } from './xdotool.js';

/**
 * The vendor-native computer tool (docs/computer-use.md, "The providers' own computer-use tools"):
 * one tool named `computer` whose calls are `{ action, coordinate?, text?, … }` — Anthropic's
 * computer-use actions, which the desktop runs with xdotool like the generic `computer_*` tools.
 */
export const NATIVE_COMPUTER_TOOL_NAME = 'computer';

/** The actions the desktop performs (Anthropic's `computer_20250124` set; `zoom` is not offered). */
export const NATIVE_ACTIONS = [
  'screenshot',
  'left_click',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'mouse_move',
  'left_click_drag',
  'left_mouse_down',
  'left_mouse_up',
  'scroll',
  'type',
  'key',
  'hold_key',
  'wait',
  'cursor_position',
] as const;
export type NativeActionName = (typeof NATIVE_ACTIONS)[number];

/**
 * One thing the desktop does for an action: an xdotool run (a chain of commands, checked again when
 * it runs), typing (the text goes to xdotool's stdin, never its arguments) or a pause.
 */
export type NativeStep = { xdotool: XdotoolCommand[] } | { type: string } | { sleepMs: number };

/** A checked action: what to run, how to name it, and whether a screenshot follows. */
export interface NativeAction {
  action: NativeActionName;
  /** For results and views: `left_click (16, 66)`. */
  label: string;
  steps: NativeStep[];
  /** `cursor_position` reads the pointer instead of taking a screenshot. */
  readsPointer: boolean;
}

/**
 * The `computer` tool's definition: `native` lets a backend that knows its vendor's version send that
 * instead (Claude); `parameters` is the same action schema as a function tool, which any other backend
 * sends and the registry checks calls against.
 */
export function nativeComputerTool(width: number, height: number): ToolDefinition {
  const pair = {
    type: 'array',
    items: { type: 'integer', minimum: 0 },
    minItems: 2,
    maxItems: 2,
  };
  return {
    name: NATIVE_COMPUTER_TOOL_NAME,
    description:
      `Use the mouse and keyboard on your own virtual desktop (${width}×${height} pixels, origin top left) ` +
      `and take screenshots of it. Every action except cursor_position returns a screenshot.`,
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: [...NATIVE_ACTIONS] },
        coordinate: { ...pair, description: '[x, y] in screen pixels' },
        start_coordinate: { ...pair, description: 'left_click_drag: where the drag starts' },
        text: {
          type: 'string',
          description:
            'type: the text; key / hold_key: xdotool key names ("ctrl+s", "Return"); clicks and scroll: modifier keys held meanwhile',
        },
        scroll_direction: { type: 'string', enum: ['up', 'down', 'left', 'right'] },
        scroll_amount: { type: 'integer', minimum: 1 },
        duration: { type: 'number', description: 'wait / hold_key: seconds' },
      },
      required: ['action'],
    },
    native: { kind: 'computer', displayWidthPx: width, displayHeightPx: height },
  };
}

/** The keys of a `key`, `hold_key` or held-modifier `text`, or the problem. */
function keyChords(text: string): KeyChord[] | string {
  return text.trim() === '' ? 'text must name the keys, e.g. "ctrl+s" or "Return"' : parseKeys(text);
}

/** `key`, `keydown` or `keyup` of checked chords, one argument each. */
function pressKeys(command: 'key' | 'keydown' | 'keyup', keys: readonly KeyChord[]): NativeStep {
  return { xdotool: [[command, '--', ...keys.map((key) => key.arg)]] };
}

const labels = (keys: readonly KeyChord[]) => keys.map((key) => key.label).join(' ');

/** Moves the pointer to a checked point and waits until it is there. */
const mousemove = ([x, y]: [number, number]): XdotoolCommand => ['mousemove', '--sync', String(x), String(y)];

const BUTTONS = { left_click: '1', middle_click: '2', right_click: '3' } as const;
const REPEATS = { double_click: 2, triple_click: 3 } as const;
const SCROLL_BUTTONS = { up: '4', down: '5', left: '6', right: '7' } as const;
const MAX_SCROLL = 50;
const MAX_TYPED = 10_000;

/**
 * Checks one `computer` call against a `width` × `height` screen: the action, or the problem (which
 * the model sees as a tool error). Nothing here touches the desktop.
 */
export function parseNativeAction(
  args: Record<string, unknown>,
  screen: { width: number; height: number; maxWaitSeconds: number },
): NativeAction | string {
  const action = args.action;
  if (typeof action !== 'string' || !(NATIVE_ACTIONS as readonly string[]).includes(action))
    return action === 'zoom'
      ? 'zoom is not available on this desktop: take a screenshot instead'
      : `action must be one of ${NATIVE_ACTIONS.join(', ')}`;
  const name = action as NativeActionName;
  const point = (key: string): [number, number] | string | undefined => {
    const value = args[key];
    if (value === undefined || value === null) return undefined;
    if (
      !Array.isArray(value) ||
      value.length !== 2 ||
      !value.every((v): v is number => typeof v === 'number' && Number.isInteger(v))
    )
      return `${key} must be [x, y] (whole numbers)`;
    const [x, y] = value as [number, number];
    if (x < 0 || x >= screen.width || y < 0 || y >= screen.height)
      return `${key} [${x}, ${y}] is off the screen (${screen.width}×${screen.height}, x 0–${screen.width - 1}, y 0–${screen.height - 1})`;
    return [x, y];
  };
  const text = typeof args.text === 'string' ? args.text : undefined;
  const seconds = (): number | string => {
    const value = args.duration ?? 1;
    return typeof value === 'number' && value >= 0 && value <= screen.maxWaitSeconds
      ? value
      : `duration must be 0 to ${screen.maxWaitSeconds} seconds`;
  };
  const coordinate = point('coordinate');
  if (typeof coordinate === 'string') return coordinate;
  const at = coordinate ? ` (${coordinate[0]}, ${coordinate[1]})` : '';
  const moveTo: XdotoolCommand[] = coordinate ? [mousemove(coordinate)] : [];
  // Modifiers held during a click or scroll (`text: "shift"`), released afterwards.
  const held = (body: NativeStep[]): NativeStep[] | string => {
    if (text === undefined || text.trim() === '') return body;
    const keys = keyChords(text);
    if (typeof keys === 'string') return keys;
    return [pressKeys('keydown', keys), ...body, pressKeys('keyup', [...keys].reverse())];
  };
  const result = (label: string, steps: NativeStep[] | string, readsPointer = false) =>
    typeof steps === 'string' ? steps : { action: name, label, steps, readsPointer };
  switch (name) {
    case 'screenshot':
      return result('screenshot', []);
    case 'cursor_position':
      return result('cursor_position', [], true);
    case 'mouse_move':
      if (!coordinate) return 'mouse_move needs coordinate [x, y]';
      return result(`mouse_move${at}`, [{ xdotool: moveTo }]);
    case 'left_click':
    case 'middle_click':
    case 'right_click':
      return result(`${name}${at}`, held([{ xdotool: [...moveTo, ['click', BUTTONS[name]]] }]));
    case 'double_click':
    case 'triple_click':
      return result(
        `${name}${at}`,
        held([{ xdotool: [...moveTo, ['click', '--repeat', String(REPEATS[name]), '1']] }]),
      );
    case 'left_mouse_down':
    case 'left_mouse_up':
      return result(`${name}${at}`, [
        { xdotool: [...moveTo, [name === 'left_mouse_down' ? 'mousedown' : 'mouseup', '1']] },
      ]);
    case 'left_click_drag': {
      const start = point('start_coordinate');
      if (typeof start === 'string') return start;
      if (!start || !coordinate) return 'left_click_drag needs start_coordinate and coordinate';
      return result(`left_click_drag (${start[0]}, ${start[1]}) → (${coordinate[0]}, ${coordinate[1]})`, [
        { xdotool: [mousemove(start), ['mousedown', '1'], ...moveTo, ['mouseup', '1']] },
      ]);
    }
    case 'scroll': {
      const direction = args.scroll_direction ?? 'down';
      if (typeof direction !== 'string' || !(direction in SCROLL_BUTTONS))
        return 'scroll_direction must be up, down, left or right';
      const amount = args.scroll_amount ?? 3;
      if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > MAX_SCROLL)
        return `scroll_amount must be a whole number from 1 to ${MAX_SCROLL}`;
      const button = SCROLL_BUTTONS[direction as keyof typeof SCROLL_BUTTONS];
      return result(
        `scroll ${direction} ×${amount}${at}`,
        held([{ xdotool: [...moveTo, ['click', '--repeat', String(amount), button]] }]),
      );
    }
    case 'type':
      if (text === undefined || text === '') return 'type needs text';
      if (text.length > MAX_TYPED) return `text must be at most ${MAX_TYPED} characters`;
      if (text.includes('\0')) return 'text must not contain a NUL character';
      return result(`type ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`, [
        { type: text },
      ]);
    case 'key': {
      const keys = keyChords(text ?? '');
      if (typeof keys === 'string') return keys;
      return result(`key ${labels(keys)}`, [pressKeys('key', keys)]);
    }
    case 'hold_key': {
      const keys = keyChords(text ?? '');
      if (typeof keys === 'string') return keys;
      const duration = seconds();
      if (typeof duration === 'string') return duration;
      return result(`hold_key ${labels(keys)} ${duration} s`, [
        pressKeys('keydown', keys),
        { sleepMs: duration * 1000 },
        pressKeys('keyup', [...keys].reverse()),
      ]);
    }
    case 'wait': {
      const duration = seconds();
      if (typeof duration === 'string') return duration;
      return result(`wait ${duration} s`, [{ sleepMs: duration * 1000 }]);
    }
  }
}
