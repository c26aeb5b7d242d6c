import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import { bearerToken, checkRequest, HostAllowList, isJsonContentType, parseHost } from './guard.js';

/** The request checks both servers share, as pure functions (the servers' tests cover them over HTTP). */
const request = (overrides: Partial<Parameters<typeof checkRequest>[0]> = {}) => ({
  method: 'POST',
  host: '127.0.0.1:8000',
  urlHost: '127.0.0.1:8000',
  origin: undefined,
  secFetchSite: undefined,
  contentType: 'application/json',
  strictSite: true,
  ...overrides,
});

describe('the request guard', () => {
  it('parses Host values and refuses anything that is not one, without throwing', () => {
    expect(parseHost('127.0.0.1:8000')).toEqual({
      hostname: '127.0.0.1',
      port: 8000,
      host: '127.0.0.1:8000',
    });
    expect(parseHost('[::1]:8000')).toMatchObject({ hostname: '[::1]', port: 8000 });
    expect(parseHost('Example.COM')).toMatchObject({ hostname: 'example.com', port: 80 });
    for (const bad of [
      '',
      'a b',
      '[::1',
      'x@y',
      'x/y',
      'x:99999',
      'x:-1',
      '\u00ff',
      'a'.repeat(400),
      null,
      undefined,
    ])
      expect(parseHost(bad), String(bad)).toBeNull();
  });

  it('allows the loopback names and the bound address on the port, and --allowed-host names', () => {
    const hosts = new HostAllowList('127.0.0.1', ['proxy.test', 'pinned.test:9000'], 8000);
    for (const host of [
      '127.0.0.1:8000',
      'localhost:8000',
      '[::1]:8000',
      'proxy.test',
      'proxy.test:1',
      'pinned.test:9000',
    ])
      expect(hosts.allows(host), host).toBe(true);
    for (const host of [
      '127.0.0.1:8001',
      'attacker.example:8000',
      'pinned.test',
      'localhost',
      '127.0.0.2:8000',
      undefined,
    ])
      expect(hosts.allows(host), String(host)).toBe(false);
    expect(() => new HostAllowList('127.0.0.1', ['*'])).toThrow(ConfigError);
    expect(() => new HostAllowList('127.0.0.1', ['http://x'])).toThrow(
      /--allowed-host "http:\/\/x" is not a host name/,
    );
  });

  it('takes application/json with parameters, and no other media type', () => {
    for (const ok of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      ' application/json ;x=1',
    ])
      expect(isJsonContentType(ok), ok).toBe(true);
    for (const bad of [
      'text/plain; x=application/json',
      'application/json5',
      'application/jsonx',
      'text/plain',
      '',
      undefined,
    ])
      expect(isJsonContentType(bad), String(bad)).toBe(false);
  });

  it('reads a Bearer credential in any case of the scheme (RFC 7235)', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER   abc ')).toBe('abc');
    for (const bad of ['Bearer', 'Bearer ', 'Basic abc', 'Bearerabc', 'Bearer a b', null])
      expect(bearerToken(bad)).toBeNull();
  });

  it('refuses foreign and opaque origins, cross-site fetches and non-JSON state changes; lets programs and the page through', () => {
    const hosts = new HostAllowList('127.0.0.1', [], 8000);
    const verdict = (overrides: Parameters<typeof request>[0]) =>
      checkRequest(request(overrides), hosts, 'massgen --web');
    expect(verdict({})).toBeNull();
    expect(verdict({ origin: 'http://127.0.0.1:8000', secFetchSite: 'same-origin' })).toBeNull();
    expect(verdict({ method: 'GET', contentType: undefined, secFetchSite: 'none' })).toBeNull();
    expect(
      verdict({ method: 'GET', contentType: undefined, secFetchSite: 'cross-site', strictSite: false }),
    ).toBeNull();
    for (const origin of [
      'null',
      'garbage',
      'http://evil.example',
      'http://127.0.0.1:8001',
      'http://127.0.0.1:8000/',
      'ftp://127.0.0.1:8000',
      'http://user@127.0.0.1:8000',
      '\u0000',
    ])
      expect(verdict({ origin })?.status, origin).toBe(403);
    for (const site of ['same-site', 'cross-site', 'garbage'])
      expect(verdict({ method: 'GET', contentType: undefined, secFetchSite: site })?.status, site).toBe(403);
    expect(verdict({ contentType: 'text/plain; x=application/json' })?.status).toBe(415);
    expect(verdict({ method: 'DELETE', contentType: undefined })?.status).toBe(415);
    expect(verdict({ host: 'attacker.example:8000' })?.message).toBe(
      'the Host "attacker.example:8000" is not an address massgen --web answers to: use http://127.0.0.1:8000/, or start it with --allowed-host attacker.example',
    );
    expect(verdict({ urlHost: 'attacker.example:8000' })?.status).toBe(403);
  });
});
