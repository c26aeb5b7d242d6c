import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { sleep } from '../../util/abort.js';
import { trackProcessTree } from '../../util/child-reaper.js';
import { bwrapArgs, type SandboxLayout } from '../execute-command/sandbox.js';
import { scrubEnv } from '../execute-command/scrub-env.js';
import type { ToolProvider } from '../tool-provider.js';
import { pngMedia } from '../png-media.js';
import { COMPUTER_TOOLS, parseComputerCall, type ComputerCall } from './definitions.js';
import {
  NATIVE_COMPUTER_TOOL_NAME,
  nativeComputerTool,
  parseNativeAction,
  type NativeAction,
} from './native-actions.js';
import { isXdotoolCommand, runXdotool, type XdotoolCommand } from './xdotool.js';
import { startXvfb, type VirtualDisplay } from './xvfb.js';
import { decodeXwd, encodePng } from './xwd-png.js';

/** Options of {@link createComputerToolProvider}. */
export interface ComputerToolOptions {
  /** The agent's workspace (absolute): screenshots go to `.computer/screenshots/` in it. */
  workspace: string;
  width: number;
  height: number;
  /** The programs used: Xvfb and xdotool (absolute paths, found on PATH by the caller). */
  xvfb: string;
  xdotool: string;
  /**
   * The caller's environment. Nothing gets it whole: Xvfb, xdotool and launched programs get a
   * scrubbed copy (`scrubEnv`: PATH, locale, TERM, TZ; never a secret) plus what X needs.
   */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Where `computer_launch` runs programs: in bubblewrap with the agent's layout and only this
   * display's socket and cookie added; `'unsandboxed'` directly (the agent's commands run unconfined
   * anyway: `execution_mode: local`); null: not at all (no sandbox on this machine).
   */
  sandbox: { bwrap: string; layout: (phase: ToolContext['phase']) => SandboxLayout } | 'unsandboxed' | null;
  /**
   * Offer the vendor-native `computer` tool (Anthropic's actions, every one answered with a
   * screenshot) instead of the generic click/move/type/key/screenshot tools; `computer_launch` and
   * `computer_wait` stay. The caller sets it when the agent's backend and model support it.
   */
  native?: boolean;
  /**
   * How long a native action's screenshot waits after the action (default {@link SETTLE_MS}), so
   * the picture shows the program's response rather than the moment of the click.
   */
  settleMs?: number;
}

/**
 * The pause before a native action's screenshot. Anthropic's reference agent waits too (longer, for
 * a full desktop); without a window manager or compositor, programs here redraw within a few frames.
 */
export const SETTLE_MS = 500;

/** Where the display's socket and cookie appear inside the sandbox (its private `/tmp`). */
const SANDBOX_AUTHORITY = '/tmp/.massgen-Xauthority';
/** Longest `computer_wait` waits for a window. */
const MAX_WAIT_SECONDS = 60;

/**
 * `tools: { computer }`: one agent's virtual desktop — an Xvfb display started with the run, driven
 * with xdotool — and the `computer_*` tools over it. xdotool runs outside the sandbox with fixed
 * argument lists; programs the agent launches run inside it, seeing only this display.
 */
export function createComputerToolProvider(options: ComputerToolOptions): ToolProvider {
  let display: VirtualDisplay | null = null;
  let failure: string | null = null;
  let shots = 0;
  const launched = new Map<number, () => void>();
  const xenv = (): NodeJS.ProcessEnv => {
    const folder = path.dirname(display!.authority);
    return {
      ...scrubEnv(options.env, { home: folder, tmpdir: folder }),
      DISPLAY: display!.display,
      XAUTHORITY: display!.authority,
    };
  };
  const xdotool = (chain: XdotoolCommand[], signal: AbortSignal, input?: string) =>
    runXdotool(options.xdotool, chain, { env: xenv(), cwd: options.workspace, signal, input });
  // The text goes to stdin, so no typed word can be read as an xdotool command or option.
  const type = (text: string, signal: AbortSignal) =>
    xdotool([['type', '--delay', '12', '--file', '-']], signal, text);

  /**
   * Saves the screen as the next `.computer/screenshots/NNN.png` and returns it as the result's media
   * (the picture for the model) with its path and size in the text.
   */
  async function screenshot(): Promise<ToolResult> {
    const image = decodeXwd(await readFile(display!.framebuffer));
    shots += 1;
    const relative = path.posix.join('.computer', 'screenshots', `${String(shots).padStart(3, '0')}.png`);
    await mkdir(path.join(options.workspace, '.computer', 'screenshots'), { recursive: true });
    const png = encodePng(image);
    await writeFile(path.join(options.workspace, relative), png);
    return {
      content: JSON.stringify({ screenshot: relative, width: image.width, height: image.height }),
      media: [pngMedia(png, relative)],
    };
  }

  /** One native action: its xdotool steps, then a screenshot (or the pointer's position). */
  async function performNative(action: NativeAction, signal: AbortSignal): Promise<ToolResult> {
    for (const step of action.steps) {
      if ('xdotool' in step) await xdotool(step.xdotool, signal);
      else if ('type' in step) await type(step.type, signal);
      else await sleep(step.sleepMs, signal);
    }
    if (action.steps.some((step) => !('sleepMs' in step))) await sleep(options.settleMs ?? SETTLE_MS, signal);
    if (action.readsPointer) {
      const shell = await xdotool([['getmouselocation', '--shell']], signal);
      const x = /^X=(\d+)/m.exec(shell)?.[1] ?? '?';
      const y = /^Y=(\d+)/m.exec(shell)?.[1] ?? '?';
      return { content: `X=${x},Y=${y}` };
    }
    const shot = await screenshot();
    const { screenshot: saved } = JSON.parse(shot.content) as { screenshot: string };
    return {
      ...shot,
      content:
        action.action === 'screenshot' ? `screenshot: ${saved}` : `${action.label}; screenshot: ${saved}`,
    };
  }

  function launch(command: string, phase: ToolContext['phase']): ToolResult {
    const env: Record<string, string> = {
      ...scrubEnv(options.env, { home: options.workspace, tmpdir: path.join(options.workspace, '.tmp') }),
      DISPLAY: display!.display,
    };
    let file: string;
    let args: string[];
    if (options.sandbox === null)
      return {
        content:
          'computer_launch is not available: this machine has no sandbox (bubblewrap) to run programs in',
        isError: true,
      };
    if (options.sandbox !== 'unsandboxed') {
      const layout = options.sandbox.layout(phase);
      file = options.sandbox.bwrap;
      args = [
        ...bwrapArgs({
          ...layout,
          network: false,
          privateTmp: true,
          mounts: [
            ...(layout.mounts ?? []),
            { source: display!.socket, target: display!.socket },
            { source: display!.authority, target: SANDBOX_AUTHORITY },
          ],
        }),
        '/bin/sh',
        '-c',
        command,
      ];
      env.XAUTHORITY = SANDBOX_AUTHORITY;
      env.TMPDIR = '/tmp';
    } else {
      file = '/bin/sh';
      args = ['-c', command];
      env.XAUTHORITY = display!.authority;
    }
    const child = spawn(file, args, { cwd: options.workspace, env, stdio: 'ignore', detached: true });
    child.on('error', () => {});
    if (child.pid === undefined) return { content: `could not start: ${command}`, isError: true };
    const pid = child.pid;
    launched.set(pid, trackProcessTree(pid, null));
    child.once('exit', () => {
      launched.get(pid)?.();
      launched.delete(pid);
    });
    return {
      content: `started on the desktop (${display!.display}), process ${pid}${options.sandbox === 'unsandboxed' ? '' : ', in the sandbox'}: take a screenshot to see it (computer_wait waits for its window)`,
    };
  }

  async function perform(call: ComputerCall, context: ToolContext): Promise<ToolResult> {
    const { signal } = context;
    switch (call.tool) {
      case 'computer_screenshot':
        return screenshot();
      case 'computer_move':
        await xdotool([['mousemove', '--sync', String(call.x), String(call.y)]], signal);
        return { content: `pointer at ${call.x},${call.y}` };
      case 'computer_click': {
        const button = { left: '1', middle: '2', right: '3' }[call.button];
        await xdotool(
          [
            ['mousemove', '--sync', String(call.x), String(call.y)],
            ['click', '--repeat', String(call.clicks), button],
          ],
          signal,
        );
        return {
          content: `${call.button}-clicked at ${call.x},${call.y}${call.clicks > 1 ? ` ×${call.clicks}` : ''}`,
        };
      }
      case 'computer_type':
        await type(call.text, signal);
        return { content: `typed ${call.text.length} characters` };
      case 'computer_key':
        await xdotool([['key', '--', ...call.keys.map((key) => key.arg)]], signal);
        return { content: `pressed ${call.keys.map((key) => key.label).join(' ')}` };
      case 'computer_launch':
        return launch(call.command, context.phase);
      case 'computer_wait': {
        const timeout = AbortSignal.timeout(call.timeout_seconds * 1000);
        try {
          // `--`: a pattern may start with "-". A pattern that is a command word is the same
          // regular expression in parentheses, which xdotool cannot take for a command.
          const pattern = isXdotoolCommand(call.window) ? `(${call.window})` : call.window;
          const ids = await xdotool(
            [['search', '--sync', '--onlyvisible', '--name', '--', pattern]],
            AbortSignal.any([signal, timeout]),
          );
          return { content: `window "${call.window}" is shown (${ids.trim().split('\n').length} match)` };
        } catch (error) {
          if (timeout.aborted && !signal.aborted)
            return {
              content: `no window named "${call.window}" within ${call.timeout_seconds} s`,
              isError: true,
            };
          throw error;
        }
      }
    }
  }

  /** The generic tools, or the native one with launch and wait. */
  function offered(): readonly ToolDefinition[] {
    const generic = COMPUTER_TOOLS(options.width, options.height, MAX_WAIT_SECONDS);
    if (!options.native) return generic;
    return [
      nativeComputerTool(options.width, options.height),
      ...generic.filter((tool) => tool.name === 'computer_launch' || tool.name === 'computer_wait'),
    ];
  }

  return {
    name: 'computer',
    async start() {
      try {
        display = await startXvfb({
          xvfb: options.xvfb,
          width: options.width,
          height: options.height,
          env: options.env,
        });
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
    },
    // Offered even when Xvfb failed to start: every call then says why, in the transcript.
    tools: offered,
    async call(name, args, context) {
      if (!display)
        return { content: `the virtual desktop is not running: ${failure ?? 'not started'}`, isError: true };
      if (options.native && !offered().some((tool) => tool.name === name))
        return { content: `computer has no tool named "${name}" here: use the computer tool`, isError: true };
      if (name === NATIVE_COMPUTER_TOOL_NAME && options.native) {
        const action = parseNativeAction(args, {
          width: options.width,
          height: options.height,
          maxWaitSeconds: MAX_WAIT_SECONDS,
        });
        if (typeof action === 'string') return { content: action, isError: true };
        return performNative(action, context.signal);
      }
      const parsed = parseComputerCall(name, args, {
        width: options.width,
        height: options.height,
        maxWait: MAX_WAIT_SECONDS,
      });
      if (typeof parsed === 'string') return { content: parsed, isError: true };
      return perform(parsed, context);
    },
    async close() {
      for (const [pid, untrack] of launched) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
        untrack();
      }
      launched.clear();
      const current = display;
      display = null;
      await current?.stop();
    },
  };
}
