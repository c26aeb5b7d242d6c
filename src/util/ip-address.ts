import ipaddr from 'ipaddr.js';

/**
 * The address's range as ipaddr.js names it (`unicast` for a public address), with an IPv4 address
 * written as IPv6 (`::ffff:127.0.0.1`) judged as the IPv4 address it is. `invalid` when it is none.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  return ipaddr.process(bare).range();
}

/**
 * True when `host` is this machine: `localhost`, or a loopback address in any spelling ipaddr.js
 * reads (`127.0.0.0/8`, `::1`, `[::1]`, `::ffff:127.0.0.1`). The one loopback check: for servers
 * that may go without a token only there, and for model URLs that need no key.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || addressRange(name) === 'loopback';
}
