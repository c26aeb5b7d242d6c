import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from './ip-address.js';

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.8.9.10',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '[::ffff:7f00:1]',
  ])('%s is this machine', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  // Each would let a server without a token be reached from elsewhere, or a URL skip its key.
  it.each([
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.5',
    '192.168.1.2',
    '::ffff:10.0.0.5',
    '127.0.0.1.nip.io',
    'localhost.example.com',
    'mylocalhost',
    '127.999.0.1',
    '',
  ])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
