import { isLoopbackHost } from '../util/ip-address.js';

/**
 * True when `url` points at this machine (`localhost` and its subdomains, a loopback address): local
 * servers usually need no API key.
 */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (url === undefined) return false;
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return hostname.endsWith('.localhost') || isLoopbackHost(hostname);
}
