import type { BrowserContext } from 'playwright-core';

/** What a page may load besides the web: its own inline content. */
const PAGE_OWN = new Set(['http:', 'https:', 'data:', 'blob:']);

/**
 * Aborts, in the whole context, every load of a scheme that is not the web's or the page's own —
 * `file:`, `view-source:`, `filesystem:`, `ftp:` and the like — whoever asks for it: a tool, a page's
 * link, redirect or frame. Chromium refuses a web page's own `file:` loads already; this holds also
 * for the loads it would make (an address the browser itself opens), behind the tools' own check.
 */
export async function refuseOtherSchemes(
  context: BrowserContext,
  onRefused: (url: string) => void,
): Promise<void> {
  await context.route(
    (url) => !PAGE_OWN.has(url.protocol),
    (route) => {
      onRefused(route.request().url());
      return route.abort('blockedbyclient');
    },
  );
}
