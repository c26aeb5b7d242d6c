import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerToken } from './guard.js';

/**
 * The web UI's cookie for the server on `port`. Cookies do not tell ports apart, so each server's
 * cookie has its own name: two servers on one machine do not overwrite each other's.
 */
export const cookieName = (port: number | undefined): string => `massgen_token_${port ?? 'web'}`;

/** Every token a request carries: `Authorization: Bearer …`, `?token=…`, the page's cookie. */
export function tokensFromRequest(request: Request, cookie: string): string[] {
  const tokens: string[] = [];
  const bearer = bearerToken(request.headers.get('authorization'));
  if (bearer) tokens.push(bearer);
  try {
    const query = new URL(request.url).searchParams.get('token');
    if (query) tokens.push(query);
  } catch {
    // Not a URL: no token in it.
  }
  tokens.push(...cookieValues(request.headers.get('cookie'), cookie));
  return tokens;
}

/** The same for a WebSocket upgrade (a Node request, not a web one). */
export function tokensFromUpgrade(request: IncomingMessage, cookie: string): string[] {
  const tokens: string[] = [];
  const bearer = bearerToken(request.headers.authorization);
  if (bearer) tokens.push(bearer);
  try {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
    if (query) tokens.push(query);
  } catch {
    // Not a URL: no token in it.
  }
  tokens.push(...cookieValues(request.headers.cookie ?? null, cookie));
  return tokens;
}

/** The values of every cookie called `name` (another server on this host may have set one too). */
function cookieValues(header: string | null, name: string): string[] {
  const values: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}

/** Constant-time comparison, so a wrong token does not leak how much of it was right. */
export function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when one of `given` is the expected token. */
export const anySameToken = (given: readonly string[], expected: string): boolean =>
  given.reduce((found, token) => sameToken(token, expected) || found, false);

/** A fresh random token (144 bits, URL-safe). */
export const newToken = (): string => randomBytes(18).toString('base64url');
