/**
 * What the browser may load: web addresses only (`http:`/`https:`), and with `allowed_origins` only
 * those origins. Chromium runs with the user's rights, so a `file:` page (or `view-source:`, `chrome:`,
 * `filesystem:`) would hand the host's files to the model.
 */

/** The schemes a tool may open. */
const WEB_SCHEMES = new Set(['http:', 'https:']);

/**
 * `url` parsed, when it is an http(s) address; otherwise an error the model can act on. Every tool that
 * takes an address goes through here before the browser sees it.
 */
export function webUrl(url: string): URL {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // named below
  }
  if (parsed === null || !WEB_SCHEMES.has(parsed.protocol)) {
    throw new Error(
      `"${url}" is not an http(s) address: the browser opens web pages only (file:, data:, chrome: and other schemes are refused)`,
    );
  }
  return parsed;
}

/** The `allowed_origins` check for an http(s) address: its origin is one of the list (or the list is unset). */
export function originAllowed(url: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (!WEB_SCHEMES.has(parsed.protocol)) return false;
  return allowed.some((origin) => new URL(origin).origin === parsed.origin);
}

/**
 * The check for a tunnel (`CONNECT host:port`, how Chromium reaches https: and wss: through a proxy):
 * `host:port` is the endpoint of an allowed origin. The host is compared in the form a URL gives it
 * (lower case, IPv4 numbers canonical, IPv6 in brackets), as Chromium sends it.
 */
export function endpointAllowed(host: string, port: number, allowed: readonly string[]): boolean {
  return allowed.some((origin) => {
    const parsed = new URL(origin);
    return parsed.hostname === host && defaultPort(parsed) === port;
  });
}

/** A URL's port, or its scheme's default one. */
export function defaultPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
}

/** The tool error for a refused address, naming what is allowed. */
export function refusedMessage(url: string, allowed: readonly string[]): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // not a URL: name it as given
  }
  return `Navigation refused: ${origin} is not in allowed_origins (allowed: ${allowed.join(', ')}).`;
}
