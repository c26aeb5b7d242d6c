/**
 * Real headless Chromium against the built `massgen --web`, shared by the web end-to-end tests: one
 * browser per test file, the web server started on a free port with its token in the printed address,
 * and a fresh browser context per page (so cookies never leak between tests).
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import path from 'node:path';
import { REPO_ROOT, startCli, waitFor, type RunningCli } from '../e2e/cli-harness.js';
import { realClockEnv } from './real-clock-env.js';

/** Debian's Chromium: playwright-core drives it instead of downloading its own. */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** Why a web test cannot run here, for its title (`''` when it can): no Chromium, or no built page. */
export const webSkipReason = !hasChromium
  ? `${CHROMIUM} not found (apt-get install chromium)`
  : !fs.existsSync(path.join(REPO_ROOT, 'dist', 'web', 'index.html'))
    ? 'dist/web is not built: npm run build'
    : '';

/**
 * Launches Chromium once for the file (when it is installed) and closes it after the last test;
 * `artifacts`, when given, is the folder the file's screenshots go to, made first.
 */
export function useBrowser({ artifacts }: { artifacts?: string } = {}): { readonly browser: Browser } {
  const holder = {} as { browser: Browser };
  beforeAll(async () => {
    if (!hasChromium) return;
    if (artifacts) fs.mkdirSync(artifacts, { recursive: true });
    holder.browser = await chromium.launch({
      executablePath: CHROMIUM,
      // The browser is a tool here, not what is tested: it gets the real clock (real-clock-env.ts).
      env: realClockEnv(),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await holder.browser?.close();
  });
  return holder;
}

/** A running `massgen --web` and the address it printed (with its `?token=`). */
export interface RunningWeb {
  cli: RunningCli;
  url: string;
}

/**
 * Starts `massgen --web --port 0 …args` in `cwd` and waits for its address. `timeoutMs` bounds the
 * whole process; the address itself must show within 15 s. `env` adds variables to the clean one.
 */
export async function startWeb(
  cwd: string,
  args: string[] = [],
  { timeoutMs = 60_000, env }: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<RunningWeb> {
  const cli = startCli(['--web', '--port', '0', ...args], { cwd, timeoutMs, ...(env ? { env } : {}) });
  await waitFor(() => /massgen web UI: (\S+)/.test(cli.stdout), 15_000, 'the web server address');
  return { cli, url: /massgen web UI: (\S+)/.exec(cli.stdout)?.[1] as string };
}

/** Stops the web server as a user would (Ctrl-C) and waits for it to exit. */
export async function stopWeb(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGINT');
  await cli.result;
}

/**
 * A page in its own browser context. `timeoutMs` is every locator's default wait: it fails with the
 * locator that did not show up, well before the test's own timeout.
 */
export async function newPage(
  browser: Browser,
  {
    height = 1000,
    timeoutMs = 15_000,
    bypassCSP = false,
  }: { height?: number; timeoutMs?: number; bypassCSP?: boolean } = {},
): Promise<Page> {
  // `bypassCSP`: a test's own script (axe-core) may run in the page; the page's code is unchanged.
  const context = await browser.newContext({ viewport: { width: 1280, height }, bypassCSP });
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  return page;
}
