import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addressRange,
  checkedAddress,
  fetchPublicUrl,
  isPublicAddress,
  UrlRefusedError,
} from './url-guard.js';

/**
 * The guard for URLs fetched on the user's behalf: private addresses refused on the first URL and on
 * every redirect hop, a host name resolved once and connected to at the checked address. Offline, a
 * public host cannot be fetched, so the tests give a made-up name (`files.test`) to the guard's
 * resolver and allow that one name: everything else on 127.0.0.1 must still be refused.
 */
let server: Server;
let port = 0;
const hits: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const to = (location: string) => {
      res.statusCode = 302;
      res.setHeader('location', location);
      res.end();
    };
    if (req.url === '/photo.png') res.end('the photo');
    else if (req.url === '/secret') res.end('internal secret');
    else if (req.url === '/to-loopback') to(`http://127.0.0.1:${port}/secret`);
    else if (req.url === '/to-mapped') to(`http://[::ffff:127.0.0.1]:${port}/secret`);
    else if (req.url === '/to-metadata') to('http://169.254.169.254/latest/meta-data/');
    else if (req.url === '/to-name') to(`http://internal.test:${port}/secret`);
    else if (req.url === '/to-photo') to('/photo.png');
    else if (req.url === '/loop') to('/loop');
    else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The test host `files.test` is this server; `internal.test` resolves to it too but is not allowed. */
const resolved: string[] = [];
const testGuard = {
  allowHosts: ['files.test'],
  resolve: async (hostname: string) => {
    resolved.push(hostname);
    if (hostname === 'files.test' || hostname === 'internal.test') return ['127.0.0.1'];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  },
};

const refusal = async (promise: Promise<unknown>): Promise<string> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UrlRefusedError);
  return (error as UrlRefusedError).message;
};

describe('which addresses are public', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
  ])('%s is not public (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it('public IPv4 and IPv6 addresses are', () => {
    for (const address of ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111'])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it('refuses URLs that name a private address however it is written, without connecting', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://localhost.localdomain.invalid@127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00::1]/',
      'http://10.0.0.1:8080/',
    ])
      expect(await refusal(checkedAddress(new URL(url))), url).toMatch(/ is .*, not a public one$/);
    expect(await refusal(checkedAddress(new URL('file:///etc/passwd')))).toMatch(
      /only http:\/\/ and https:\/\//,
    );
  });

  it('refuses a name whose addresses are not all public (resolved once)', async () => {
    const resolve = async () => ['93.184.216.34', '10.0.0.7'];
    expect(await refusal(checkedAddress(new URL('http://mixed.test/'), { resolve }))).toBe(
      '10.0.0.7 is a private network address, not a public one',
    );
    expect(
      await checkedAddress(new URL('http://public.test/'), { resolve: async () => ['93.184.216.34'] }),
    ).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });
});

describe('fetchPublicUrl', () => {
  it('refuses a loopback URL with a clear reason and never connects', async () => {
    hits.length = 0;
    expect(await refusal(fetchPublicUrl(`http://127.0.0.1:${port}/secret`))).toBe(
      '127.0.0.1 is a loopback address (this machine), not a public one',
    );
    expect(await refusal(fetchPublicUrl(`http://localhost:${port}/secret`))).toMatch(
      /^(127\.0\.0\.1|::1) is a loopback address/,
    );
    expect(hits).toEqual([]);
  });

  it('fetches a private address when allowed (--allow-private-urls)', async () => {
    const response = await fetchPublicUrl(`http://127.0.0.1:${port}/to-photo`, { allowPrivate: true });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('the photo');
  });

  it('an allowed host is fetched, but a redirect from it into a private address is refused', async () => {
    const ok = await fetchPublicUrl(`http://files.test:${port}/photo.png`, testGuard);
    expect(await ok.text()).toBe('the photo');
    hits.length = 0;
    for (const [route, target] of [
      ['/to-loopback', `127.0.0.1 is a loopback address`],
      ['/to-mapped', `::ffff:7f00:1 (127.0.0.1) is a loopback address`],
      ['/to-metadata', `169.254.169.254 is a link-local address`],
      ['/to-name', `127.0.0.1 is a loopback address`],
    ] as const) {
      const message = await refusal(fetchPublicUrl(`http://files.test:${port}${route}`, testGuard));
      expect(message, route).toMatch(
        new RegExp(`^it redirects to \\S+, and ${target.replace(/[.()]/g, '\\$&')}`),
      );
    }
    // Each redirect was answered, and the secret behind it never asked for.
    expect(hits).toEqual(['/to-loopback', '/to-mapped', '/to-metadata', '/to-name']);
  });

  it('resolves a name once per hop and connects to the address it checked', async () => {
    resolved.length = 0;
    // The system resolver does not know files.test: the download works only through the checked address.
    const response = await fetchPublicUrl(`http://files.test:${port}/to-photo`, testGuard);
    expect(await response.text()).toBe('the photo');
    expect(resolved).toEqual(['files.test', 'files.test']);
  });

  it('gives up after the redirect limit', async () => {
    expect(
      await refusal(fetchPublicUrl(`http://files.test:${port}/loop`, { ...testGuard, maxRedirects: 3 })),
    ).toMatch(/^more than 3 redirects/);
  });
});
