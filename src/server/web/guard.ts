import os from 'node:os';
import type { Context, MiddlewareHandler } from 'hono';
import { ConfigError } from '../../types/errors.js';

/**
 * What every massgen server checks before it looks at a request, so that no web page — on another
 * site, on another port of this machine, in a sandboxed frame, or behind a rebound DNS name — can
 * drive it through a user's browser:
 *
 * - the `Host` is one this server answers to (DNS rebinding sends the attacker's name);
 * - an `Origin`, when sent, is this server's own (`null` and anything unparsable are refused);
 * - `Sec-Fetch-Site`, when sent, is `same-origin` or `none` (for the API and every state change);
 * - a state change (POST, PUT, PATCH, DELETE) carries `Content-Type: application/json`, which a page
 *   on another origin cannot send without a CORS preflight — and preflights are refused by the rule
 *   above, since they always carry a foreign `Origin`.
 *
 * Non-browser clients (curl, the `openai` package) send neither `Origin` nor `Sec-Fetch-Site` and pass.
 */

/** A refused request: its status and one line naming what was refused and what to do. */
export interface Refusal {
  status: 400 | 403 | 415;
  message: string;
}

/** A `Host` (or `Origin` authority) taken apart: a normalised host name and a port (80 when absent). */
interface HostParts {
  hostname: string;
  port: number;
  /** `hostname:port` as `URL.host` writes it (no port when it is 80). */
  host: string;
}

/** `name`, `name:port`, `1.2.3.4:port`, `[::1]:port` — nothing with a user, path, query or spaces. */
const HOST_SHAPE = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i;

/** The parts of a `Host` header, or null when it is not one. Never throws. */
export function parseHost(value: string | null | undefined): HostParts | null {
  if (!value || value.length > 300 || !HOST_SHAPE.test(value)) return null;
  try {
    const url = new URL(`http://${value}`);
    if (url.hostname === '') return null;
    return { hostname: url.hostname, port: url.port === '' ? 80 : Number(url.port), host: url.host };
  } catch {
    return null;
  }
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The addresses of this machine's interfaces and its name, for a server bound to every interface. */
function thisMachine(): string[] {
  const names = [os.hostname().toLowerCase()];
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4') names.push(a.address);
      else if (!a.address.includes('%') && !a.address.toLowerCase().startsWith('fe80'))
        names.push(`[${a.address}]`);
    }
  }
  return names;
}

/**
 * The `Host` values a server answers to: the loopback names (`localhost`, `127.0.0.1`, `[::1]`) and the
 * address it is bound to, on its own port; for a server bound to every interface (`0.0.0.0`, `::`),
 * also this machine's addresses and host name; and each `--allowed-host` name (on any port, or the one
 * it gives). Anything else — in particular a DNS name rebound to 127.0.0.1 — is refused.
 */
export class HostAllowList {
  /** The port the server listens on, once known; while unknown any port is accepted. */
  port: number | undefined;
  private readonly names = new Set<string>();
  private readonly extra: { hostname: string; port: number | null }[] = [];

  /**
   * @param bound the address the server listens on (undefined: a handler mounted elsewhere).
   * @param allowed the `--allowed-host` values: `name` or `name:port`.
   * @throws {ConfigError} for an allowed host that is not a host name.
   */
  constructor(bound: string | undefined, allowed: readonly string[] = [], port?: number) {
    this.port = port;
    const add = (name: string) => {
      const parts = parseHost(name);
      if (parts) this.names.add(parts.hostname);
    };
    LOOPBACK_NAMES.forEach(add);
    if (bound !== undefined) {
      if (WILDCARDS.has(bound)) thisMachine().forEach(add);
      else add(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound);
    }
    for (const value of allowed) {
      const parts = parseHost(value.trim());
      if (!parts || value.trim() === '*') {
        throw new ConfigError(`--allowed-host "${value}" is not a host name`, {
          hint: 'give a name as browsers send it in Host, e.g. --allowed-host massgen.example.com or myhost:8000',
        });
      }
      this.extra.push({ hostname: parts.hostname, port: /:\d+$/.test(value.trim()) ? parts.port : null });
    }
  }

  /** True when a request with this `Host` may be answered. */
  allows(host: string | null | undefined): boolean {
    const parts = parseHost(host);
    if (!parts) return false;
    if (this.names.has(parts.hostname) && (this.port === undefined || parts.port === this.port)) return true;
    return this.extra.some(
      (e) => e.hostname === parts.hostname && (e.port === null || e.port === parts.port),
    );
  }
}

/** `application/json`, with or without parameters (`; charset=utf-8`) — and nothing else. */
export function isJsonContentType(value: string | null | undefined): boolean {
  if (!value) return false;
  return (value.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True for the methods that change state (everything but GET, HEAD and OPTIONS). */
export const changesState = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

/** The headers {@link checkRequest} looks at, from a web request or a Node one. */
export interface GuardedRequest {
  method: string;
  /** The `Host` header (absent for a request built in-process). */
  host: string | null | undefined;
  /** The host the request URL names (differs from `Host` only for an absolute-form request target). */
  urlHost: string | null | undefined;
  origin: string | null | undefined;
  secFetchSite: string | null | undefined;
  contentType: string | null | undefined;
  /** Check `Sec-Fetch-Site` even for a safe method (the API and the WebSocket; not page navigations). */
  strictSite: boolean;
}

/**
 * The one refusal a request gets, or null when it may go on (to the token check and the routes).
 * `server` names the server in messages (`massgen --web`, `massgen serve`). Never throws.
 */
export function checkRequest(request: GuardedRequest, hosts: HostAllowList, server: string): Refusal | null {
  const host = request.host ?? request.urlHost;
  if (!hosts.allows(host) || (request.host && request.urlHost && !hosts.allows(request.urlHost))) {
    const shown = String(host ?? '').slice(0, 100);
    const name = parseHost(host)?.hostname ?? 'NAME';
    return {
      status: 403,
      message: `the Host "${shown}" is not an address ${server} answers to: use http://127.0.0.1:${hosts.port ?? 'PORT'}/, or start it with --allowed-host ${name}`,
    };
  }
  const origin = request.origin;
  if (origin !== undefined && origin !== null) {
    if (!sameOrigin(origin, host)) {
      const shown = origin.slice(0, 100);
      return {
        status: 403,
        message:
          origin === 'null'
            ? `a page with an opaque origin (Origin: null: a sandboxed frame, a file, a redirect) may not use ${server}: open the page ${server} serves`
            : `a page on another origin ("${shown}") may not use ${server}: open the page ${server} serves, or call it from a program rather than a browser`,
      };
    }
  }
  const site = request.secFetchSite;
  if (
    site !== undefined &&
    site !== null &&
    site !== 'same-origin' &&
    site !== 'none' &&
    (request.strictSite || changesState(request.method))
  ) {
    return {
      status: 403,
      message: `a request from another site (Sec-Fetch-Site: ${site.slice(0, 30)}) may not use ${server}: open the page ${server} serves`,
    };
  }
  if (changesState(request.method) && !isJsonContentType(request.contentType)) {
    const given = request.contentType
      ? `"Content-Type: ${request.contentType.slice(0, 100)}"`
      : 'no Content-Type';
    return {
      status: 415,
      message: `a request body with ${given} is refused: send JSON with "Content-Type: application/json"`,
    };
  }
  return null;
}

/** True when `origin` is exactly `http(s)://` + the request's `Host`. Never throws. */
function sameOrigin(origin: string, host: string | null | undefined): boolean {
  const hostParts = parseHost(host);
  if (!hostParts || !/^https?:\/\/[^/?#@\s]+$/i.test(origin)) return false;
  try {
    const url = new URL(origin);
    return url.origin === origin.toLowerCase() && url.host === hostParts.host;
  } catch {
    return false;
  }
}

/** {@link checkRequest} for a web request: the Host header, or the URL's host when there is none. */
export function guardedRequest(request: Request, strictSite: boolean): GuardedRequest {
  let urlHost: string | null = null;
  try {
    urlHost = new URL(request.url).host;
  } catch {
    // A request object always has a URL; nothing to compare otherwise.
  }
  return {
    method: request.method,
    host: request.headers.get('host'),
    urlHost,
    origin: request.headers.get('origin'),
    secFetchSite: request.headers.get('sec-fetch-site'),
    contentType: request.headers.get('content-type'),
    strictSite,
  };
}

/**
 * The checks as Hono middleware: `strictSite(path)` says which paths are API (checked against
 * `Sec-Fetch-Site` for every method); `refuse` answers in the server's own error format.
 */
export function requestGuard(options: {
  hosts: HostAllowList;
  server: string;
  strictSite: (path: string) => boolean;
  refuse: (c: Context, refusal: Refusal) => Response | Promise<Response>;
}): MiddlewareHandler {
  return async (c, next) => {
    const refusal = checkRequest(
      guardedRequest(c.req.raw, options.strictSite(c.req.path)),
      options.hosts,
      options.server,
    );
    if (refusal) return options.refuse(c, refusal);
    await next();
  };
}

/** The `Authorization: Bearer …` credential (the scheme is case-insensitive, RFC 7235), or null. */
export function bearerToken(header: string | null | undefined): string | null {
  const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return match?.[1] ?? null;
}

/** Decodes a percent-encoded path segment, or null when the encoding is malformed. */
export function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
