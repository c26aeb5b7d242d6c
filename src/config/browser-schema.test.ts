import { describe, expect, it } from 'vitest';
import { backend, messagesOf } from './config.test-support.js';
import { parseConfig } from './parse-config.js';

const withBrowser = (browser: unknown) => ({ agents: [{ id: 'a', backend }], tools: { browser } });

describe('tools.browser', () => {
  it('true means the defaults; false and leaving it out mean no browser', () => {
    expect(parseConfig(withBrowser(true), { env: {} }).tools.browser).toEqual({ headless: true });
    expect(parseConfig(withBrowser(false), { env: {} }).tools.browser).toBeUndefined();
    expect(parseConfig({ agents: [{ id: 'a', backend }] }, { env: {} }).tools.browser).toBeUndefined();
  });

  it('takes headless, allowed origins and the executable', () => {
    const browser = parseConfig(
      withBrowser({
        headless: false,
        allowed_origins: ['http://127.0.0.1:8080', 'https://example.com/'],
        executable_path: '/usr/bin/chromium',
      }),
      { env: {} },
    ).tools.browser;
    expect(browser).toEqual({
      headless: false,
      allowed_origins: ['http://127.0.0.1:8080', 'https://example.com/'],
      executable_path: '/usr/bin/chromium',
    });
  });

  it('refuses an origin with a path, a non-http scheme and unknown keys', () => {
    expect(messagesOf(withBrowser({ allowed_origins: ['https://example.com/wiki'] })).join('\n')).toContain(
      'must be an origin',
    );
    expect(messagesOf(withBrowser({ allowed_origins: ['file:///etc'] })).join('\n')).toContain(
      'must be an origin',
    );
    expect(messagesOf(withBrowser({ headles: true })).join('\n')).toContain('headles');
  });
});
