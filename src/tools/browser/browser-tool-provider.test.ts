import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPages } from '../../../test/fixtures/browser/pages.js';
import type { ToolContext } from '../../types/tool.js';
import { createBrowserToolProvider, findChromium, originAllowed } from './index.js';
import { safeName } from './browser-session.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';

// Chromium and Xvfb are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const chromium = findChromium(process.env.PATH);
const context: ToolContext = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };

/** Live Chromium processes started for `workspace` (its command line names it). */
function browsersOf(workspace: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`--massgen-workspace=${workspace}`) && !line.trimStart().startsWith('Z'));
}

describe('originAllowed', () => {
  it('matches whole web origins only; unset allows everything', () => {
    const allowed = ['http://127.0.0.1:8080', 'https://example.com'];
    expect(originAllowed('http://127.0.0.1:8080/a?b', allowed)).toBe(true);
    expect(originAllowed('https://example.com/', allowed)).toBe(true);
    expect(originAllowed('http://example.com/', allowed)).toBe(false);
    expect(originAllowed('http://127.0.0.1:8081/', allowed)).toBe(false);
    expect(originAllowed('https://example.com.evil.test/', allowed)).toBe(false);
    expect(originAllowed('about:blank', allowed)).toBe(false);
    expect(originAllowed('file:///etc/passwd', allowed)).toBe(false);
    expect(originAllowed('not a url', allowed)).toBe(false);
    expect(originAllowed('https://anything.test/', undefined)).toBe(true);
  });

  it('download names lose folders and leading dots', () => {
    expect(safeName('../report.csv')).toBe('report.csv');
    expect(safeName('..\\..\\x.txt')).toBe('x.txt');
    expect(safeName('.bashrc')).toBe('bashrc');
    expect(safeName('')).toBe('download');
  });
});

describe.skipIf(chromium === null)(
  `browser tools in real Chromium${chromium === null ? ' (skipped: no chromium on PATH)' : ''}`,
  () => {
    let pages: Awaited<ReturnType<typeof startPages>>;
    let other: Awaited<ReturnType<typeof startPages>>;
    beforeAll(async () => {
      [pages, other] = await Promise.all([startPages(), startPages()]);
    });
    afterAll(async () => {
      await Promise.all([pages?.close(), other?.close()]);
    });
    const workspace = () => mkdtempSync(path.join(os.tmpdir(), 'massgen-browser-'));

    it('fills a form, reads the result, screenshots and downloads into the workspace; close leaves no browser', async () => {
      const ws = workspace();
      const browser = createBrowserToolProvider({
        executablePath: chromium!,
        headless: true,
        workspace: ws,
        env: process.env,
      });
      await browser.start({ signal: context.signal, report: () => {} });
      try {
        const opened = await browser.call('browser_navigate', { url: `${pages.origin}/` }, context);
        expect(opened.isError).toBeFalsy();
        expect(opened.content).toContain('textbox "Your name"');
        const typed = await browser.call(
          'browser_type',
          { target: 'role=textbox[name="Your name"]', text: 'Ada', submit: true },
          context,
        );
        expect(typed.content).toContain('Hello, Ada! Code 4217.');
        const shot = await browser.call('browser_screenshot', {}, context);
        expect(shot.content).toMatch(/^screenshot: screenshots\/001\.png/);
        expect(readFileSync(path.join(ws, 'screenshots/001.png')).subarray(1, 4).toString()).toBe('PNG');
        // The picture goes to the model as media, named by its workspace path (what events record).
        const png = readFileSync(path.join(ws, 'screenshots/001.png'));
        expect(shot.media).toHaveLength(1);
        expect(shot.media![0]).toMatchObject({
          name: '001.png',
          path: 'screenshots/001.png',
          mediaType: 'image/png',
          kind: 'image',
          bytes: png.length,
        });
        expect(Buffer.from(shot.media![0]!.data).equals(png)).toBe(true);
        await browser.call('browser_navigate', { url: `${pages.origin}/files` }, context);
        const saved = await browser.call('browser_download', { target: 'text=Get the report' }, context);
        // The server suggests "../report.csv": the file still lands inside downloads/.
        const file = /^download: (downloads\/[^/\n]*report\.csv)\n/.exec(saved.content)?.[1];
        expect(file).toBeDefined();
        expect(readFileSync(path.join(ws, file!), 'utf8')).toContain('Oslo,42');
        expect(browsersOf(ws).length).toBeGreaterThan(0);
      } finally {
        await browser.close();
      }
      expect(browsersOf(ws)).toEqual([]);
    });

    it('allowed_origins refuses another origin with a clear tool error, also when a page links there', async () => {
      const ws = workspace();
      const browser = createBrowserToolProvider({
        executablePath: chromium!,
        headless: true,
        workspace: ws,
        allowedOrigins: [pages.origin],
        env: process.env,
      });
      try {
        const refused = await browser.call('browser_navigate', { url: `${other.origin}/` }, context);
        expect(refused).toEqual({
          content: `browser_navigate failed: Navigation refused: ${other.origin} is not in allowed_origins (allowed: ${pages.origin}).`,
          isError: true,
        });
        const fine = await browser.call(
          'browser_navigate',
          { url: `${pages.origin}/link?to=${encodeURIComponent(`${other.origin}/`)}` },
          context,
        );
        expect(fine.isError).toBeFalsy();
        const clicked = await browser.call('browser_click', { target: 'text=Go there' }, context);
        expect(clicked.content).toContain(`Request refused: ${other.origin} is not in allowed_origins`);
        const download = await browser.call(
          'browser_download',
          { url: `${other.origin}/report.csv` },
          context,
        );
        expect(download.isError).toBe(true);
        expect(download.content).toContain('not in allowed_origins');
      } finally {
        await browser.close();
      }
    });

    it("two agents' browsers keep their cookies apart", async () => {
      const make = () =>
        createBrowserToolProvider({
          executablePath: chromium!,
          headless: true,
          workspace: workspace(),
          env: process.env,
        });
      const [a, b] = [make(), make()];
      try {
        await a.call('browser_navigate', { url: `${pages.origin}/set?v=lemon` }, context);
        await b.call('browser_navigate', { url: `${pages.origin}/set?v=mint` }, context);
        expect(
          (await a.call('browser_navigate', { url: `${pages.origin}/cookie` }, context)).content,
        ).toContain('cookie: flavour=lemon');
        const seenByB = (await b.call('browser_navigate', { url: `${pages.origin}/cookie` }, context))
          .content;
        expect(seenByB).toContain('cookie: flavour=mint');
        expect(seenByB).not.toContain('lemon');
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  },
);
