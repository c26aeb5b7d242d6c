import { lookup as systemLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { addressRange } from './ip-address.js';

export { addressRange } from './ip-address.js';

/**
 * The one guard for URLs massgen fetches on the user's behalf (attachments given as URLs, and any
 * later fetch of a URL that came from a config, a caller or a model): only public addresses, unless
 * the user allows their own network. A URL from a config shared with you, or a redirect from a public
 * server, must not reach this machine's services (127.0.0.1), the LAN, or a cloud's metadata address
 * (169.254.169.254). Each host name is resolved once and the connection goes to the address that was
 * checked, so a name that answers a public address to the check and a private one to the connection
 * (DNS rebinding) gets nowhere; each redirect hop is checked the same way.
 */

/** What the guard lets through. */
export interface UrlGuardOptions {
  /** Any address, private ones included (`--allow-private-urls`). */
  allowPrivate?: boolean;
  /** Resolves a host name to its addresses (default: the system resolver). Tests map names here. */
  resolve?: (hostname: string) => Promise<readonly string[]>;
  /**
   * Host names (as in the URL) let through whatever they resolve to: a test's own server under a
   * made-up name, while every other private address stays refused.
   */
  allowHosts?: readonly string[];
}

/** Options of {@link fetchPublicUrl}. */
export interface FetchPublicOptions extends UrlGuardOptions {
  signal?: AbortSignal;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  headers?: Readonly<Record<string, string>>;
}

/** A URL the guard refused: `reason` is one sentence (`127.0.0.1 is a loopback address`). */
export class UrlRefusedError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'UrlRefusedError';
  }
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  linkLocal: 'a link-local address (cloud metadata services live there)',
  uniqueLocal: 'a unique-local IPv6 address (a private network)',
  unspecified: 'the unspecified address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
};

/** True for an address on the public internet; false for loopback, private, link-local and the rest. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === 'unicast';

function refusal(address: string, range: string): string {
  const what = RANGE_WORDS[range] ?? `a reserved address (${range})`;
  const ipv4 = ipaddr.process(address).toString();
  return `${address}${ipv4 === address ? '' : ` (${ipv4})`} is ${what}, not a public one`;
}

/** A URL's host as an address when it is one (`[::1]` → `::1`), else null. */
function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? bare : null;
}

const resolveAll = async (hostname: string): Promise<string[]> =>
  (await systemLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The address to connect to for `url`: its host resolved once (every address must pass, so the
 * connection cannot land on the one that would not), or why not.
 *
 * @throws {UrlRefusedError} for a scheme other than http(s), a host that does not resolve, or a
 * non-public address (unless allowed).
 */
export async function checkedAddress(
  url: URL,
  options: UrlGuardOptions = {},
): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRefusedError(url.href, `only http:// and https:// URLs are fetched, not ${url.protocol}`);
  const literal = literalAddress(url.hostname);
  let addresses: readonly string[];
  if (literal !== null) addresses = [literal];
  else {
    try {
      addresses = await (options.resolve ?? resolveAll)(url.hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UrlRefusedError(
        url.href,
        `the host ${url.hostname} was not found${code ? ` (${code})` : ''}`,
      );
    }
  }
  const first = addresses[0];
  if (first === undefined || addresses.some((a) => !ipaddr.isValid(a)))
    throw new UrlRefusedError(url.href, `the host ${url.hostname} did not resolve to an address`);
  const allowed = options.allowPrivate === true || (options.allowHosts ?? []).includes(url.hostname);
  if (!allowed)
    for (const address of addresses) {
      const range = addressRange(address);
      if (range !== 'unicast') throw new UrlRefusedError(url.href, refusal(address, range));
    }
  return { address: first, family: ipaddr.parse(first).kind() === 'ipv6' ? 6 : 4 };
}

/** A `lookup` that answers the checked address whatever is asked: the connection goes there. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function request(url: URL, pinned: { address: string; family: 4 | 6 }, options: FetchPublicOptions) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const get = url.protocol === 'https:' ? https.get : http.get;
    const req = get(url, {
      lookup: pinnedLookup(pinned.address, pinned.family),
      // No pooled socket: each request connects to the address checked for it.
      agent: false,
      headers: { ...options.headers },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    req.once('response', resolve);
    req.once('error', reject);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function toResponse(message: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const status = message.statusCode ?? 502;
  const empty = status === 204 || status === 304 || status < 200;
  if (empty) message.resume();
  return new Response(empty ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>), {
    status: status < 200 || status > 599 ? 502 : status,
    statusText: message.statusMessage ?? '',
    headers,
  });
}

/**
 * GETs a URL through the guard: every hop (the URL, then each redirect) is resolved once, checked,
 * and connected to at the checked address. Returns the final response (any status but a redirect).
 *
 * @throws {UrlRefusedError} for a refused hop, too many redirects, or a redirect without a location;
 * network errors as they come (the caller words them).
 */
export async function fetchPublicUrl(url: string, options: FetchPublicOptions = {}): Promise<Response> {
  const maxRedirects = options.maxRedirects ?? 5;
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    const pinned = await checkedAddress(current, options).catch((error: unknown) => {
      if (hop === 0 || !(error instanceof UrlRefusedError)) throw error;
      throw new UrlRefusedError(url, `it redirects to ${current.href}, and ${error.reason}`);
    });
    const message = await request(current, pinned, options);
    const status = message.statusCode ?? 0;
    if (!REDIRECTS.has(status)) return toResponse(message);
    message.resume();
    const location = message.headers.location;
    if (!location)
      throw new UrlRefusedError(current.href, `the server answered ${status} without saying where to`);
    if (hop >= maxRedirects)
      throw new UrlRefusedError(url, `more than ${maxRedirects} redirects (the last to ${location})`);
    current = new URL(location, current);
  }
}
