/**
 * The browser reads no host files and hands massgen's environment to no page: in real Chromium, the
 * tools refuse every address that is not http(s) — with and without allowed_origins — the context
 * aborts such loads whoever asks, a web page's own links, frames and redirects to `file:` load nothing,
 * and Chromium's environment holds none of massgen's variables.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium as playwright } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPages, type Pages } from '../../../test/fixtures/browser/pages.js';
import { useRealClockForChildren } from '../../../test/support/real-clock-env.js';
import type { ToolContext } from '../../types/tool.js';
import { createBrowserToolProvider, findChromium } from './index.js';
import { refuseOtherSchemes } from './scheme-guard.js';

useRealClockForChildren();

const chromium = findChromium(process.env.PATH);
const context: ToolContext = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };
const MARKER = 'HOST-FILE-MARKER-5521';
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'massgen-browser-'));

describe.skipIf(chromium === null)(
  `schemes and environment in real Chromium${chromium === null ? ' (skipped: no chromium on PATH)' : ''}`,
  () => {
    let pages: Pages;
    let hostFile: string;
    beforeAll(async () => {
      pages = await startPages();
      // A file of the host the browser's user can read, standing in for /etc/shadow or a .env.
      hostFile = path.join(tempDir(), 'shadow');
      writeFileSync(hostFile, `root:${MARKER}:19000:0:99999:7:::\n`);
    });
    afterAll(async () => {
      await pages?.close();
    });

    for (const allowedOrigins of [undefined, 'the page server']) {
      it(`the tools open no address but http(s) (allowed_origins ${allowedOrigins ? 'set' : 'unset'})`, async () => {
        const workspace = tempDir();
        const browser = createBrowserToolProvider({
          executablePath: chromium!,
          headless: true,
          workspace,
          env: process.env,
          ...(allowedOrigins ? { allowedOrigins: [pages.origin] } : {}),
        });
        try {
          const file = `file://${hostFile}`;
          const download = await browser.call('browser_download', { url: file }, context);
          expect(download).toMatchObject({ isError: true });
          expect(download.content).toContain('is not an http(s) address');
          // The reported attack: the download "failed", and the page it left behind was the file.
          expect((await browser.call('browser_snapshot', {}, context)).content).not.toContain(MARKER);
          expect(readdirSync(workspace)).toEqual([]);
          for (const url of [
            file,
            `FILE://${hostFile}`,
            `view-source:file://${hostFile}`,
            `view-source:${pages.origin}/`,
            `data:text/html,<iframe src="file://${hostFile}"></iframe>`,
            'chrome://version',
            `filesystem:${pages.origin}/temporary/x`,
            `blob:${pages.origin}/0d6a8f52-3b6c-4d1b-9d0e-000000000000`,
            'ftp://127.0.0.1/',
            `/${hostFile}`,
            'about:blank',
          ]) {
            const opened = await browser.call('browser_navigate', { url }, context);
            expect(opened, url).toMatchObject({ isError: true });
            expect(opened.content, url).toContain('is not an http(s) address');
            const fetched = await browser.call('browser_download', { url }, context);
            expect(fetched.content, url).toContain('is not an http(s) address');
          }
          expect((await browser.call('browser_snapshot', {}, context)).content).not.toContain(MARKER);
        } finally {
          await browser.close();
        }
      });
    }

    it("a web page's link, frame, refresh, worker fetch and redirect to file: load nothing", async () => {
      const browser = createBrowserToolProvider({
        executablePath: chromium!,
        headless: true,
        workspace: tempDir(),
        env: process.env,
      });
      const file = `file://${hostFile}`;
      const to = (page: string) => `${pages.origin}${page}?to=${encodeURIComponent(file)}`;
      try {
        for (const page of ['/frame', '/redirect', '/meta', '/link']) {
          const opened = await browser.call('browser_navigate', { url: to(page) }, context);
          expect(opened.content, page).not.toContain(MARKER);
        }
        // On /link: the model clicks it.
        const clicked = await browser.call('browser_click', { target: 'text=Go there' }, context);
        expect(clicked.content).not.toContain(MARKER);
        await browser.call('browser_navigate', { url: to('/worker') }, context);
        const snapshot = await browser.call('browser_snapshot', {}, context);
        expect(snapshot.content).not.toContain(MARKER);
        expect(snapshot.content).toContain(pages.origin);
      } finally {
        await browser.close();
      }
    });

    it('the context aborts file: and other schemes whoever opens them', async () => {
      const browser = await playwright.launch({ executablePath: chromium!, args: ['--no-sandbox'] });
      try {
        const guarded = await browser.newContext();
        const refused: string[] = [];
        await refuseOtherSchemes(guarded, (url) => refused.push(url));
        const page = await guarded.newPage();
        // The browser itself opens it (as page.goto does), past any tool's check.
        const error = await page.goto(`file://${hostFile}`).then(
          () => null,
          (e: Error) => e.message,
        );
        expect(error).toContain('ERR_BLOCKED_BY_CLIENT');
        // Chromium shows its error page instead.
        await page.waitForURL('chrome-error://chromewebdata/');
        expect(await page.content()).not.toContain(MARKER);
        expect(refused).toEqual([`file://${hostFile}`]);
        // A web page still loads.
        await page.goto(`${pages.origin}/`);
        expect(await page.content()).toContain('Greeter');
      } finally {
        await browser.close();
      }
    });

    it("Chromium's environment has none of massgen's variables, its keys least of all", async () => {
      const workspace = tempDir();
      // massgen's own environment holds the keys (as when a user exports them).
      const planted = {
        OPENAI_API_KEY: 'sk-massgen-test-secret-0001',
        MASSGEN_PLAIN_SETTING: 'plain-value-0002',
        HOME: '/root-of-the-user',
      };
      const saved = { ...process.env };
      Object.assign(process.env, planted);
      const browser = createBrowserToolProvider({
        executablePath: chromium!,
        headless: true,
        workspace,
        env: process.env,
      });
      try {
        expect(
          (await browser.call('browser_navigate', { url: `${pages.origin}/` }, context)).isError,
        ).toBeFalsy();
        const pids = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
          .split('\n')
          .filter((line) => line.includes(`--massgen-workspace=${workspace}`))
          .map((line) => line.trim().split(/\s+/)[0]!);
        expect(pids.length).toBeGreaterThan(0);
        for (const pid of pids) {
          const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
          const names = environ.map((entry) => entry.slice(0, entry.indexOf('=')));
          expect(environ.join('\n')).not.toMatch(/sk-massgen-test-secret|plain-value-0002/);
          expect(names).not.toContain('OPENAI_API_KEY');
          expect(environ).not.toContain('HOME=/root-of-the-user');
          expect(environ).toContainEqual(expect.stringMatching(/^PATH=\//));
        }
      } finally {
        await browser.close();
        for (const name of Object.keys(planted)) delete process.env[name];
        Object.assign(process.env, { HOME: saved.HOME });
      }
    });
  },
);
