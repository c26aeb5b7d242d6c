import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { trackChildProcess } from '../../util/child-reaper.js';
import { scrubEnv } from '../execute-command/scrub-env.js';

/** A virtual screen of one agent: an Xvfb server on a display number of its own. */
export interface VirtualDisplay {
  /** `:N`, for `DISPLAY`. */
  display: string;
  /** The server's unix socket, `/tmp/.X11-unix/XN`: the only way in (no TCP, no other listener). */
  socket: string;
  /** The authority file with the display's cookie, for `XAUTHORITY`. */
  authority: string;
  /** Xvfb's screen as an XWD file, updated as it is drawn (`-fbdir`): what screenshots read. */
  framebuffer: string;
  width: number;
  height: number;
  /** Stops the server and removes its folder. Idempotent. */
  stop(): Promise<void>;
}

/**
 * An Xauthority entry that matches any display (family FamilyWild, no number), so the file can be
 * written before Xvfb picks its display number.
 */
function authorityEntry(cookie: Buffer): Buffer {
  const field = (value: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(value.length, 0);
    return Buffer.concat([length, value]);
  };
  const family = Buffer.from([0xff, 0xff]);
  return Buffer.concat([
    family,
    field(Buffer.alloc(0)),
    field(Buffer.alloc(0)),
    field(Buffer.from('MIT-MAGIC-COOKIE-1', 'latin1')),
    field(cookie),
  ]);
}

/** Reads the display number Xvfb writes to its `-displayfd` once it accepts connections. */
function displayNumber(server: ChildProcess, pipe: Readable, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onExit = (code: number | null) =>
      reject(
        new Error(`Xvfb exited (${code ?? 'signal'}) before it was ready: ${stderr().trim().slice(-400)}`),
      );
    pipe.setEncoding('utf8');
    pipe.on('data', (piece: string) => {
      text += piece;
      const match = /^(\d+)\n/.exec(text);
      if (!match) return;
      server.off('exit', onExit);
      resolve(Number(match[1]));
    });
    server.once('exit', onExit);
    server.once('error', reject);
  });
}

/**
 * Starts Xvfb (`xvfb` is its path): `-displayfd` lets it take the first free display number and says
 * which once it listens, so nothing is polled; `-nolisten tcp` leaves only the unix socket, and the
 * cookie in a private folder (mode 0700) is needed to connect at all.
 */
export async function startXvfb(options: {
  xvfb: string;
  width: number;
  height: number;
  /** The caller's environment: Xvfb gets a scrubbed copy (never a secret), its home its own folder. */
  env: Readonly<Record<string, string | undefined>>;
}): Promise<VirtualDisplay> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-x-'));
  const authority = path.join(dir, 'Xauthority');
  writeFileSync(authority, authorityEntry(randomBytes(16)), { mode: 0o600 });
  let errors = '';
  const server = spawn(
    options.xvfb,
    [
      '-displayfd',
      '3',
      '-screen',
      '0',
      `${options.width}x${options.height}x24`,
      '-nolisten',
      'tcp',
      '-auth',
      authority,
      '-fbdir',
      dir,
      '-nocursor',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: scrubEnv(options.env, { home: dir, tmpdir: dir }) },
  );
  const untrack = server.pid === undefined ? () => {} : trackChildProcess(server.pid);
  const exited = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve();
    server.once('exit', () => resolve());
    server.once('error', () => resolve());
  });
  server.stderr!.setEncoding('utf8');
  server.stderr!.on('data', (piece: string) => {
    errors = (errors + piece).slice(-4000);
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      // Xvfb ends promptly on SIGTERM (and removes its socket); SIGKILL if it does not.
      const timer = setTimeout(() => server.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    untrack();
    rmSync(dir, { recursive: true, force: true });
  };
  let number: number;
  try {
    number = await displayNumber(server, server.stdio[3] as Readable, () => errors);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    display: `:${number}`,
    socket: `/tmp/.X11-unix/X${number}`,
    authority,
    framebuffer: path.join(dir, 'Xvfb_screen0'),
    width: options.width,
    height: options.height,
    stop,
  };
}
