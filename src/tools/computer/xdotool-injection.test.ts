import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../types/tool.js';
import type { ToolProvider } from '../tool-provider.js';
import { missingPrograms, startTestDesktop, testContext } from './desktop.test-support.js';
import { XDOTOOL_COMMANDS } from './xdotool.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';
import { waitUntil } from '../../../test/support/wait.js';

// Xvfb and the X apps are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const missing = missingPrograms('Xvfb', 'xdotool', 'xev', 'xmessage');
const skipped = missing === '' ? '' : ` (skipped: ${missing} not installed)`;
const context = testContext();

/** A started desktop; the programs it launches (xev, xmessage) run unsandboxed: they are the test's own. */
const desktop = (native: boolean) => startTestDesktop({ native, settleMs: 0 });

async function ok(provider: ToolProvider, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = await provider.call(name, args, context);
  expect(result.isError ?? false, `${name} ${JSON.stringify(args)}: ${result.content}`).toBe(false);
  return result;
}

/** The text typed into an xev window so far: the bytes of its KeyPress events. */
function typedInto(xevLog: string): string {
  const presses = readFileSync(xevLog, 'utf8').matchAll(
    /KeyPress event[^]*?XLookupString gives \d+ bytes:(?: \(([0-9a-f ]+)\))?/g,
  );
  const bytes = [...presses].flatMap((m) =>
    (m[1] ?? '')
      .split(' ')
      .filter(Boolean)
      .map((h) => parseInt(h, 16)),
  );
  return Buffer.from(bytes).toString('utf8');
}

/** Starts xev on the desktop, the pointer over it (no window manager: focus follows the pointer). */
async function xevWindow(provider: ToolProvider, workspace: string, native: boolean): Promise<string> {
  await ok(provider, 'computer_launch', {
    command: 'exec xev -geometry 200x100+0+0 -event keyboard > xev.txt',
  });
  await ok(provider, 'computer_wait', { window: '^Event Tester$', timeout_seconds: 60 });
  if (native) await ok(provider, 'computer', { action: 'mouse_move', coordinate: [50, 50] });
  else await ok(provider, 'computer_move', { x: 50, y: 50 });
  return path.join(workspace, 'xev.txt');
}

async function waitForTyped(xevLog: string, expected: string): Promise<void> {
  await waitUntil(
    () => typedInto(xevLog).length >= expected.length,
    `xev to receive ${JSON.stringify(expected)}`,
    {
      seen: () => JSON.stringify(typedInto(xevLog)),
    },
  );
  expect(typedInto(xevLog)).toBe(expected);
}

/**
 * Every way a key argument could smuggle xdotool command `word` in. xdotool runs in the workspace,
 * so the first ones (words only, as the issue's `a exec touch FILE`) would create `pwned_…` there;
 * the last would write into `folder`.
 */
function attacks(word: string, folder: string): string[] {
  const capitalised = `${word[0]!.toUpperCase()}${word.slice(1)}`;
  return [
    word,
    `a ${word} touch pwned_${word}_1`,
    `ctrl+a ${word} touch pwned_${word}_2`,
    `shift+b ${word.toUpperCase()} touch pwned_${word}_3`,
    `Return ${capitalised} sh -c >${path.join(folder, word)}`,
  ];
}

/** The workspace's `pwned…` files and `folder`'s contents: what an attack that worked left. */
const leftovers = (workspace: string, folder: string) => [
  ...readdirSync(workspace).filter((name) => name.startsWith('pwned_')),
  ...readdirSync(folder),
];

/** The call was refused with a line naming the word (as it was spelled). */
function expectRefused(result: ToolResult, word: string, keys: string): void {
  expect(result.isError, `${keys}: ${result.content}`).toBe(true);
  expect(result.content, keys).toMatch(new RegExp(`^"${word}"( in "[^"]*")? is not a key`, 'i'));
}

const WORDS = XDOTOOL_COMMANDS.filter((word) => word !== 'help');

describe('xdotool cannot be made to run a command', () => {
  it.skipIf(missing !== '')(
    `computer_key refuses every xdotool command word, alone and chained, and runs nothing${skipped}`,
    async () => {
      const { provider, workspace } = await desktop(false);
      const folder = path.join(workspace, 'pwned');
      mkdirSync(folder);
      for (const word of WORDS) {
        for (const keys of attacks(word, folder)) {
          expectRefused(await provider.call('computer_key', { keys }, context), word, keys);
        }
      }
      expect(leftovers(workspace, folder)).toEqual([]);
      // The Help key shares its name with `help`: it is pressed, not run.
      expect(await ok(provider, 'computer_key', { keys: 'a Help' })).toEqual({ content: 'pressed a Help' });
      // Arguments that are not keys are checked too.
      for (const args of [
        { x: '1 exec', y: 1 },
        { x: 1, y: 1, button: 'exec' },
        { x: 1, y: 1, clicks: 'exec' },
        { x: 1.5, y: 1 },
        { x: -1, y: 1 },
        { x: 1, y: 200 },
      ]) {
        expect((await provider.call('computer_click', args, context)).isError, JSON.stringify(args)).toBe(
          true,
        );
      }
    },
  );

  it.skipIf(missing !== '')(
    `the native computer tool's key, hold_key and held modifiers refuse them too${skipped}`,
    async () => {
      const { provider, workspace } = await desktop(true);
      const folder = path.join(workspace, 'pwned');
      mkdirSync(folder);
      for (const word of WORDS) {
        for (const keys of attacks(word, folder)) {
          for (const args of [
            { action: 'key', text: keys },
            { action: 'hold_key', text: keys, duration: 0 },
            { action: 'left_click', coordinate: [1, 1], text: keys },
            { action: 'scroll', coordinate: [1, 1], scroll_direction: 'down', text: keys },
          ]) {
            expectRefused(await provider.call('computer', args, context), word, `${args.action} ${keys}`);
          }
        }
      }
      expect(leftovers(workspace, folder)).toEqual([]);
      expect((await ok(provider, 'computer', { action: 'key', text: 'ctrl+a Help' })).content).toMatch(
        /^key ctrl\+a Help; screenshot: /,
      );
    },
  );

  // What a model types is never an xdotool argument: it goes to `type --file -` on stdin.
  const TEXT = (file: string) =>
    `a exec touch ${file}; key ctrl+a type --help Search sleep 9 EXEC sh -c >${file}`;

  it.skipIf(missing !== '')(
    `computer_type types text full of command words literally, read back from a real X window${skipped}`,
    async () => {
      const { provider, workspace } = await desktop(false);
      const xev = await xevWindow(provider, workspace, false);
      const file = path.join(workspace, 'pwned');
      await ok(provider, 'computer_type', { text: TEXT(file) });
      await waitForTyped(xev, TEXT(file));
      expect(existsSync(file)).toBe(false);
    },
  );

  it.skipIf(missing !== '')(`the native type action types them literally too${skipped}`, async () => {
    const { provider, workspace } = await desktop(true);
    const xev = await xevWindow(provider, workspace, true);
    const file = path.join(workspace, 'pwned');
    await ok(provider, 'computer', { action: 'type', text: TEXT(file) });
    await waitForTyped(xev, TEXT(file));
    expect(existsSync(file)).toBe(false);
  });

  it.skipIf(missing !== '')(
    `computer_wait takes any pattern as a pattern: a command word, or one that looks like an option${skipped}`,
    async () => {
      const { provider } = await desktop(false);
      await ok(provider, 'computer_launch', {
        command: 'exec xmessage -geometry 100x50+0+0 -title exec -buttons Ok:0 hi',
      });
      expect((await ok(provider, 'computer_wait', { window: 'exec', timeout_seconds: 60 })).content).toMatch(
        /^window "exec" is shown/,
      );
      // Read as an option, "-help" would print xdotool's usage and "succeed".
      expect(
        await provider.call('computer_wait', { window: '-help', timeout_seconds: 0.5 }, context),
      ).toEqual({
        content: 'no window named "-help" within 0.5 s',
        isError: true,
      });
    },
  );
});
