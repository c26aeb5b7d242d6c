import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The token a request carries: `Authorization: Bearer …`, `?token=…`, or the page's cookie. */
export function tokenFromRequest(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  const query = new URL(request.url).searchParams.get('token');
  if (query) return query;
  return cookieToken(request.headers.get('cookie'));
}

/** The same for a WebSocket upgrade (a Node request, not a web one). */
export function tokenFromUpgrade(request: IncomingMessage): string | null {
  const url = new URL(request.url ?? '/', 'http://localhost');
  return url.searchParams.get('token') ?? cookieToken(request.headers.cookie ?? null);
}

function cookieToken(cookie: string | null): string | null {
  const match = /(?:^|;\s*)massgen_token=([^;]+)/.exec(cookie ?? '');
  return match?.[1] ?? null;
}

/** Constant-time comparison, so a wrong token does not leak how much of it was right. */
export function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh random token for a server that listens beyond loopback. */
export const newToken = (): string => randomBytes(18).toString('base64url');

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
