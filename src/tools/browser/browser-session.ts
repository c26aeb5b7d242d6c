import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { access } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Download, type Page } from 'playwright-core';
import { browserEnv } from './browser-env.js';
import { startOriginProxy, type OriginProxy } from './origin-proxy.js';
import { originAllowed, refusedMessage, webUrl } from './origins.js';
import { refuseOtherSchemes } from './scheme-guard.js';
import type { BrowserSettings } from './settings.js';

/** How long one action may wait for its element or page (the registry's tool timeout still applies). */
const ACTION_TIMEOUT_MS = 15_000;
/** The snapshot sent back after an action is cut here; browser_snapshot has the registry's own cap. */
const SNAPSHOT_AFTER_ACTION_CHARS = 6_000;

/**
 * Chromium's own sandbox is on, except as root where it cannot start (Playwright turns it off unless
 * asked: without it a renderer exploit has the user's rights).
 */
const CHROMIUM_SANDBOX = process.getuid?.() !== 0;

/**
 * Flags for Chromium: no background traffic of its own. With a filter proxy, everything goes through
 * it — loopback too (Chromium would bypass a proxy for it), and WebRTC, which would otherwise send UDP
 * past any proxy.
 */
export function chromiumArgs(proxy?: string): string[] {
  return [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage',
    ...(proxy === undefined
      ? []
      : [
          `--proxy-server=${proxy}`,
          '--proxy-bypass-list=<-loopback>',
          '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        ]),
  ];
}

/**
 * One agent's browser: its own Chromium process and context (cookies and storage belong to it alone),
 * started on the first browser call and closed with the run. It opens web addresses only, with
 * `allowed_origins` every connection passes a filter proxy, and downloads are saved into the workspace
 * only.
 */
export class BrowserSession {
  private browser: Browser | null = null;
  private context: BrowserContext | null = null;
  private proxy: OriginProxy | null = null;
  private home: string | null = null;
  private launching: Promise<Page> | null = null;
  private closed = false;
  private screenshots = 0;
  /** Why each request refused since the last action was, reported with its result. */
  private refused: string[] = [];

  constructor(private readonly settings: BrowserSettings) {}

  private currentPage(): Promise<Page> {
    if (this.closed) return Promise.reject(new Error('the browser was closed with the run'));
    this.launching ??= this.launch();
    return this.launching;
  }

  private async launch(): Promise<Page> {
    const { executablePath, headless, allowedOrigins } = this.settings;
    const home = mkdtempSync(path.join(os.tmpdir(), 'massgen-browser-home-'));
    this.home = home;
    if (allowedOrigins !== undefined) {
      const list = allowedOrigins.join(', ');
      this.proxy = await startOriginProxy(allowedOrigins, (what) =>
        this.refused.push(`${what} is not in allowed_origins (allowed: ${list}).`),
      );
    }
    // The workspace in Chromium's command line says whose browser a process is (ps, the tests).
    const args = [...chromiumArgs(this.proxy?.url), `--massgen-workspace=${this.settings.workspace}`];
    const env = browserEnv(this.settings.env, home, headless);
    const browser = await chromium.launch({
      executablePath,
      headless,
      args,
      env,
      chromiumSandbox: CHROMIUM_SANDBOX,
    });
    this.browser = browser;
    if (this.closed) {
      await browser.close();
      throw new Error('the browser was closed with the run');
    }
    const context = await browser.newContext({ acceptDownloads: true, serviceWorkers: 'block' });
    this.context = context;
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    await refuseOtherSchemes(context, (url) =>
      this.refused.push(`${url} is not a web address (only http and https load).`),
    );
    return context.newPage();
  }

  /** `url` when the tools may open it: a web address, of an allowed origin. */
  private checked(url: string): string {
    const allowed = this.settings.allowedOrigins;
    const parsed = webUrl(url);
    if (allowed !== undefined && !originAllowed(parsed.href, allowed)) {
      throw new Error(refusedMessage(url, allowed));
    }
    return parsed.href;
  }

  async navigate(url: string): Promise<string> {
    const address = this.checked(url);
    const page = await this.currentPage();
    this.refused = [];
    await page.goto(address, { waitUntil: 'load' });
    return this.describe(page);
  }

  async snapshot(limit?: number): Promise<string> {
    return this.describe(await this.currentPage(), limit);
  }

  async click(target: string): Promise<string> {
    const page = await this.currentPage();
    this.refused = [];
    await page.locator(target).first().click();
    await settle(page);
    return this.describe(page, SNAPSHOT_AFTER_ACTION_CHARS);
  }

  async type(target: string, text: string, submit: boolean): Promise<string> {
    const page = await this.currentPage();
    this.refused = [];
    const field = page.locator(target).first();
    await field.fill(text);
    if (submit) {
      await field.press('Enter');
      await settle(page);
    }
    return this.describe(page, SNAPSHOT_AFTER_ACTION_CHARS);
  }

  /** Saves a PNG under `screenshots/` in the workspace; returns its path relative to the workspace. */
  async screenshot(fullPage: boolean): Promise<string> {
    const page = await this.currentPage();
    this.screenshots += 1;
    const relative = `screenshots/${String(this.screenshots).padStart(3, '0')}.png`;
    const file = path.join(this.settings.workspace, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    await page.screenshot({ path: file, fullPage });
    return relative;
  }

  /** Clicks `target` (or opens `url`) and saves the download under `downloads/`; returns its relative path. */
  async download(target: string | undefined, url: string | undefined): Promise<string> {
    const address = url === undefined ? undefined : this.checked(url);
    const page = await this.currentPage();
    this.refused = [];
    const started = page.waitForEvent('download');
    if (target !== undefined) {
      await page.locator(target).first().click();
    } else if (address !== undefined) {
      // An address that downloads makes goto fail with "Download is starting": the download is what counts.
      page.goto(address).catch(() => {});
    }
    return this.save(await started);
  }

  private async save(download: Download): Promise<string> {
    const name = safeName(download.suggestedFilename());
    const folder = path.join(this.settings.workspace, 'downloads');
    mkdirSync(folder, { recursive: true });
    let relative = `downloads/${name}`;
    for (let n = 2; await exists(path.join(this.settings.workspace, relative)); n += 1) {
      const ext = path.extname(name);
      relative = `downloads/${path.basename(name, ext)}-${n}${ext}`;
    }
    await download.saveAs(path.join(this.settings.workspace, relative));
    return relative;
  }

  private async describe(page: Page, limit?: number): Promise<string> {
    const title = await page.title();
    let tree = await page.locator('body').ariaSnapshot();
    if (limit !== undefined && tree.length > limit) {
      tree = `${tree.slice(0, limit)}\n… (cut: call browser_snapshot for the whole page)`;
    }
    const refused = [...new Set(this.refused)].map((why) => `\nRequest refused: ${why}`).join('');
    return `Page: ${title}\nURL: ${page.url()}${refused}\n\n${tree}`;
  }

  /** Closes the context, the browser process and its proxy, and removes its home. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => {});
    await this.context?.close().catch(() => {});
    await this.browser?.close().catch(() => {});
    await this.proxy?.close();
    if (this.home !== null) rmSync(this.home, { recursive: true, force: true });
  }
}

/** Waits briefly for what an action started (a navigation, a form post) to load. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('load', { timeout: ACTION_TIMEOUT_MS }).catch(() => {});
}

/** A download's suggested name as a plain file name: no folders, no leading dots, no odd characters. */
export function safeName(suggested: string): string {
  const base = path.basename(suggested.replace(/\\/g, '/'));
  const clean = base.replace(/[^A-Za-z0-9._ -]/g, '_').replace(/^[.\s]+/, '');
  return clean.length > 0 ? clean.slice(0, 120) : 'download';
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
