import type { ToolDefinition } from '../../types/messages.js';
import { parseKeys, type KeyChord } from './keys.js';

/** The computer tools' names, in the order they are offered. */
export const COMPUTER_TOOL_NAMES = [
  'computer_screenshot',
  'computer_click',
  'computer_move',
  'computer_type',
  'computer_key',
  'computer_launch',
  'computer_wait',
] as const;

/** One call with checked arguments. */
export type ComputerCall =
  | { tool: 'computer_screenshot' }
  | { tool: 'computer_move'; x: number; y: number }
  | { tool: 'computer_click'; x: number; y: number; button: 'left' | 'middle' | 'right'; clicks: number }
  | { tool: 'computer_type'; text: string }
  | { tool: 'computer_key'; keys: KeyChord[] }
  | { tool: 'computer_launch'; command: string }
  | { tool: 'computer_wait'; window: string; timeout_seconds: number };

const point = (width: number, height: number) => ({
  x: { type: 'integer', minimum: 0, maximum: width - 1, description: 'pixels from the left edge' },
  y: { type: 'integer', minimum: 0, maximum: height - 1, description: 'pixels from the top edge' },
});

/** The tool definitions for a screen of `width` × `height`. */
export function COMPUTER_TOOLS(width: number, height: number, maxWait: number): ToolDefinition[] {
  const screen = `the agent's own virtual desktop (${width}×${height} pixels, origin top left)`;
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: 'object' as const,
    properties,
    required,
    additionalProperties: false,
  });
  return [
    {
      name: 'computer_screenshot',
      description: `Takes a screenshot of ${screen}. Saves it as a PNG in your workspace and returns its path.`,
      parameters: object({}, []),
      annotations: { readOnly: true },
    },
    {
      name: 'computer_click',
      description: `Moves the pointer to x,y on ${screen} and clicks.`,
      parameters: object(
        {
          ...point(width, height),
          button: { type: 'string', enum: ['left', 'middle', 'right'], default: 'left' },
          clicks: {
            type: 'integer',
            minimum: 1,
            maximum: 3,
            default: 1,
            description: '2 for a double click',
          },
        },
        ['x', 'y'],
      ),
    },
    {
      name: 'computer_move',
      description: `Moves the pointer to x,y on ${screen} without clicking.`,
      parameters: object(point(width, height), ['x', 'y']),
    },
    {
      name: 'computer_type',
      description: `Types text with the keyboard into the focused window of ${screen}.`,
      parameters: object({ text: { type: 'string', minLength: 1, maxLength: 10000 } }, ['text']),
    },
    {
      name: 'computer_key',
      description: `Presses keys or key combinations on ${screen}, in order, e.g. "ctrl+s", "Return", "alt+F4" (X keysym names or single characters, with ctrl, alt, shift or super, joined by +).`,
      parameters: object(
        {
          keys: {
            type: 'string',
            minLength: 1,
            maxLength: 500,
            description: 'one or more combinations separated by spaces',
          },
        },
        ['keys'],
      ),
    },
    {
      name: 'computer_launch',
      description: `Starts a program on ${screen} (a shell command, run in your workspace inside the sandbox, in the background). Its output is not returned: take a screenshot.`,
      parameters: object({ command: { type: 'string', minLength: 1, maxLength: 4000 } }, ['command']),
    },
    {
      name: 'computer_wait',
      description: `Waits until a window whose title matches a pattern (a regular expression) is shown on ${screen}.`,
      parameters: object(
        {
          window: { type: 'string', minLength: 1, maxLength: 200 },
          timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: maxWait, default: 10 },
        },
        ['window'],
      ),
      annotations: { readOnly: true },
    },
  ];
}

/** Checks a call's arguments (the registry has validated them against the schema): a call, or the problem. */
export function parseComputerCall(
  name: string,
  args: Record<string, unknown>,
  screen: { width: number; height: number; maxWait: number },
): ComputerCall | string {
  const int = (key: string, max: number): number | string => {
    const value = args[key];
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < max
      ? value
      : `${key} must be a whole number from 0 to ${max - 1}`;
  };
  const text = (key: string): string => (typeof args[key] === 'string' ? (args[key] as string) : '');
  // A text argument that must say something; NUL is refused here, as no program argument can carry it.
  const problem = (key: string, value: string): string | null =>
    value === ''
      ? `${key} must not be empty`
      : value.includes('\0')
        ? `${key} must not contain a NUL character`
        : null;
  switch (name) {
    case 'computer_screenshot':
      return { tool: name };
    case 'computer_move':
    case 'computer_click': {
      const x = int('x', screen.width);
      const y = int('y', screen.height);
      if (typeof x === 'string') return x;
      if (typeof y === 'string') return y;
      if (name === 'computer_move') return { tool: name, x, y };
      const button = args.button ?? 'left';
      if (button !== 'left' && button !== 'middle' && button !== 'right')
        return 'button must be left, middle or right';
      const clicks = args.clicks ?? 1;
      if (typeof clicks !== 'number' || ![1, 2, 3].includes(clicks)) return 'clicks must be 1, 2 or 3';
      return { tool: name, x, y, button, clicks };
    }
    case 'computer_type':
      return problem('text', text('text')) ?? { tool: name, text: text('text') };
    case 'computer_key': {
      const keys = parseKeys(text('keys'));
      return typeof keys === 'string' ? keys : { tool: name, keys };
    }
    case 'computer_launch':
      return problem('command', text('command').trim()) ?? { tool: name, command: text('command') };
    case 'computer_wait': {
      const timeout = args.timeout_seconds ?? 10;
      if (typeof timeout !== 'number' || !(timeout > 0) || timeout > screen.maxWait)
        return `timeout_seconds must be above 0 and at most ${screen.maxWait}`;
      return (
        problem('window', text('window')) ?? { tool: name, window: text('window'), timeout_seconds: timeout }
      );
    }
    default:
      return `unknown computer tool "${name}"`;
  }
}
