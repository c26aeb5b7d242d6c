/**
 * The attacks on `allowed_origins` in real Chromium, through the tools as a model calls them: an allowed
 * page reaches for a refused origin (another port of 127.0.0.1) by a 302, a WebSocket, a meta refresh,
 * an iframe, a Web Worker's fetch and an image — and the refused server receives nothing at all.
 */
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPages, type Pages } from '../../../test/fixtures/browser/pages.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';
import type { ToolContext } from '../../types/tool.js';
import type { ToolProvider } from '../tool-provider.js';
import { createBrowserToolProvider, findChromium } from './index.js';
import { waitUntil } from '../../../test/support/wait.js';

useRealClockForChildren();

const chromium = findChromium(process.env.PATH);
const context: ToolContext = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };

/** Calls browser_snapshot until `pattern` shows (what the page's script writes when it knows). */
async function snapshotUntil(browser: ToolProvider, pattern: RegExp, awaited: string): Promise<string> {
  let seen = '';
  await waitUntil(
    async () => pattern.test((seen = (await browser.call('browser_snapshot', {}, context)).content)),
    awaited,
    {
      seen: () => `the last snapshot:\n${seen}`,
      intervalMs: 200,
    },
  );
  return seen;
}

describe.skipIf(chromium === null)(
  `allowed_origins in real Chromium${chromium === null ? ' (skipped: no chromium on PATH)' : ''}`,
  () => {
    let allowed: Pages;
    let refused: Pages;
    let browser: ToolProvider;
    let workspace: string;
    beforeAll(async () => {
      [allowed, refused] = await Promise.all([startPages(), startPages()]);
    });
    afterAll(async () => {
      await Promise.all([allowed?.close(), refused?.close()]);
    });
    let before: { connections: number; requests: number };
    beforeEach(() => {
      before = { connections: refused.connections, requests: refused.requests.length };
      workspace = mkdtempSync(path.join(os.tmpdir(), 'massgen-browser-'));
      browser = createBrowserToolProvider({
        executablePath: chromium!,
        headless: true,
        workspace,
        allowedOrigins: [allowed.origin],
        env: process.env,
      });
    });
    afterEach(async () => {
      await browser.close();
      // Nothing of any test reached the refused origin, not even a TCP connection.
      expect(refused.requests.slice(before.requests)).toEqual([]);
      expect(refused.connections - before.connections).toBe(0);
    });
    const open = (page: string, to: string) =>
      browser.call(
        'browser_navigate',
        { url: `${allowed.origin}${page}?to=${encodeURIComponent(to)}` },
        context,
      );

    it('a 302 from an allowed page to a refused origin is not followed', async () => {
      const result = await open('/redirect', `${refused.origin}/secret`);
      expect(result.content).not.toContain('ORCHID');
      expect(result.content).toContain(`Request refused: ${refused.origin} is not in allowed_origins`);
    });

    it('a 302 within the allowed origin is followed', async () => {
      const result = await open('/redirect', `${allowed.origin}/secret`);
      expect(result.content).toContain('the secret is ORCHID-7731');
    });

    it("a page's WebSocket to a refused origin never connects; one to its own origin does", async () => {
      await open('/ws', `${refused.origin.replace('http:', 'ws:')}/echo`);
      await snapshotUntil(browser, /outcome: failed/, 'the refused WebSocket to fail');
      await open('/ws', `${allowed.origin.replace('http:', 'ws:')}/echo`);
      await snapshotUntil(browser, /outcome: echo hi/, 'the allowed WebSocket to echo');
    });

    it('a meta refresh to a refused origin does not load it', async () => {
      await open('/meta', `${refused.origin}/secret`);
      const seen = await snapshotUntil(browser, /massgen refused this request/, 'the refresh to be refused');
      expect(seen).not.toContain('ORCHID');
    });

    it('an iframe of a refused origin does not load', async () => {
      const result = await open('/frame', `${refused.origin}/secret`);
      expect(result.content).not.toContain('ORCHID');
    });

    it("a Web Worker's fetch to a refused origin does not leave", async () => {
      await open('/worker', `${refused.origin}/collect?data=secret`);
      await snapshotUntil(browser, /outcome: (fetched|failed)/, "the worker's fetch to finish");
    });

    it('WebRTC sends nothing to a refused STUN server (its UDP would pass any proxy)', async () => {
      const stun = dgram.createSocket('udp4');
      const datagrams: Buffer[] = [];
      stun.on('message', (message) => datagrams.push(message));
      await new Promise<void>((resolve) => stun.bind(0, '127.0.0.1', resolve));
      try {
        await open('/rtc', `stun:127.0.0.1:${stun.address().port}`);
        await snapshotUntil(browser, /outcome: gathered/, 'ICE gathering to complete');
        expect(datagrams).toEqual([]);
      } finally {
        stun.close();
      }
    });

    it('closing the browser stops its proxy and removes its home folder', async () => {
      await open('/secret', '');
      const line = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
        .split('\n')
        .find((l) => l.includes(`--massgen-workspace=${workspace}`) && l.includes('--proxy-server='))!;
      const port = Number(/--proxy-server=http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
      const pid = line.trim().split(/\s+/)[0]!;
      const home = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((entry) => entry.startsWith('HOME='))!
        .slice('HOME='.length);
      expect(existsSync(home)).toBe(true);
      await browser.close();
      expect(existsSync(home)).toBe(false);
      const reached = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve('connected')));
        socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(reached).toBe('ECONNREFUSED');
    });

    it('an image from a refused origin does not load', async () => {
      await open('/img', `${refused.origin}/pixel.png`);
      await snapshotUntil(browser, /outcome: failed/, 'the image to fail');
    });
  },
);
