/**
 * `massgen demo --web` in real headless Chromium, with the BUILT CLI and no key: the run page it prints
 * (with its token) follows the demo question to Grace's winning answer — the revision's vote reset, the
 * votes and the scripted notice on the page — then takes a follow-up, while the server keeps every
 * guard of `massgen --web`: the token, the Host allow-list, and 127.0.0.1 only.
 */
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeWorkdir, removeTempDirs, startCli, waitFor } from './cli-harness.js';
import { CHROMIUM, hasChromium, newPage, useBrowser } from '../support/web-browser.js';

afterAll(removeTempDirs);
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');
const chrome = useBrowser({ artifacts: ARTIFACTS });
const POLL = { timeout: 20_000 };
const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

/** The status of a GET to `origin`'s `path` with these headers (Host may be set, unlike with fetch). */
const status = (origin: string, pathname: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(pathname, origin);
    http
      .get({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });

/** Whether anything accepts a TCP connection at `host:port`. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe.skipIf(!hasChromium)(
  hasChromium ? 'massgen demo --web' : `massgen demo --web (skipped: ${CHROMIUM} not found)`,
  () => {
    it(
      'the printed page reaches the winner, shows the reset and the notice, takes a follow-up; the guards hold',
      { timeout: 120_000 },
      async () => {
        const cwd = makeWorkdir();
        // No DISPLAY here: the address is printed, no browser is opened.
        const cli = startCli(['demo', '--web'], { cwd, env: { TMPDIR: cwd }, timeoutMs: 110_000 });
        const page = await newPage(chrome.browser);
        try {
          await waitFor(
            () => cli.stdout.includes('Press Ctrl-C to stop.'),
            30_000,
            'the demo run address',
            () => `stdout: ${cli.stdout}\nstderr: ${cli.stderr}`,
          );
          const runPage = /The demo question is running: (\S+)/.exec(cli.stdout)?.[1] as string;
          expect(runPage).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/runs\/[^/?]+\?token=[\w-]+$/);
          const { origin, port, searchParams } = new URL(runPage);
          const token = searchParams.get('token') as string;

          await page.goto(runPage);
          await page.getByRole('heading', { name: 'At what temperature does water boil?' }).waitFor();
          const final = page.getByRole('region', { name: 'Final answer' });
          await final.getByText('about 1 °C per 300 m.').waitFor({ timeout: 60_000 });
          await final.getByRole('heading', { name: 'Final answer — grace' }).waitFor();
          await final.getByText(/Scripted demo: massgen's built-in demo team wrote this answer/).waitFor();
          const timeline = page.getByRole('region', { name: 'Timeline' });
          await timeline
            .getByText(/agent2\.2 reset the votes of/)
            .first()
            .waitFor();
          await timeline.getByText(/scripted demo agents \(backend type demo\)/).waitFor();
          const votes = page.getByRole('region', { name: 'Votes' }).getByRole('list', { name: 'Vote list' });
          await expect
            .poll(() => votes.getByRole('listitem').filter({ hasText: '(reset)' }).count(), POLL)
            .toBeGreaterThanOrEqual(1);
          // The token left the address bar for the page's cookie.
          expect(page.url()).not.toContain('token=');
          await shot(page, 'demo-web-final');

          await page.getByLabel('Follow-up').fill('What is 6 times 7?');
          await page.getByRole('button', { name: 'Ask' }).click();
          await page.getByRole('heading', { name: 'What is 6 times 7?' }).waitFor();
          await page
            .getByRole('region', { name: 'Final answer' })
            .getByText('The answer is 42: 6 × 7 = 42. Check: 42 ÷ 7 = 6.')
            .waitFor({ timeout: 60_000 });

          // The same server as massgen --web: the token, the Host allow-list, loopback only.
          expect(await status(origin, '/api/runs', {})).toBe(401);
          expect(await status(origin, '/api/runs', { authorization: `Bearer ${token}` })).toBe(200);
          expect(
            await status(origin, '/api/runs', {
              authorization: `Bearer ${token}`,
              host: `rebound.example:${port}`,
            }),
          ).toBe(403);
          expect(await accepts('127.0.0.1', Number(port))).toBe(true);
          expect(await accepts('127.0.0.2', Number(port))).toBe(false);
        } finally {
          await page.context().close();
          cli.child.kill('SIGINT');
          const result = await cli.result;
          expect(result.code, result.stderr).toBe(0);
        }
      },
    );
  },
);
