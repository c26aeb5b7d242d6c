/**
 * The `allowed_origins` check: a URL may be loaded when its origin is one of the list (or the list is
 * unset). `about:`, `data:` and `blob:` URLs are the page's own content, not a new origin.
 */
export function originAllowed(url: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (['about:', 'data:', 'blob:'].includes(parsed.protocol)) return true;
  return allowed.some((origin) => new URL(origin).origin === parsed.origin);
}

/** The tool error for a refused URL, naming what is allowed. */
export function refusedMessage(url: string, allowed: readonly string[]): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // not a URL: name it as given
  }
  return `Navigation refused: ${origin} is not in allowed_origins (allowed: ${allowed.join(', ')}).`;
}
