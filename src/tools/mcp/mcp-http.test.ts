import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../tool-provider.js';
import { createMcpToolProvider, type McpProviderOptions } from './index.js';
import { killAndWait, recorder, startHttpFixture, toolContext } from './mcp.test-support.js';
import { waitUntil } from '../../../test/support/wait.js';

const providers: ToolProvider[] = [];
const servers: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await Promise.all(servers.splice(0).map(killAndWait));
});

async function httpFixture(args: string[] = [], port = 0): Promise<{ url: string; child: ChildProcess }> {
  const started = await startHttpFixture(args, port);
  servers.push(started.child);
  return started;
}

function provider(
  url: string,
  headers: Record<string, string> = {},
  options?: McpProviderOptions,
): ToolProvider {
  const created = createMcpToolProvider('web', { type: 'streamable-http', url, headers }, options);
  providers.push(created);
  return created;
}

describe('MCP provider over streamable HTTP', () => {
  it('connects with the configured headers, lists and calls tools', async () => {
    const { url } = await httpFixture(['--token', 's3cret']);
    const web = provider(url, { 'x-fixture-token': 's3cret' });
    const { context, events } = recorder();
    await web.start(context);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'mcp.server.ready',
        server: 'web',
        tools: expect.arrayContaining(['mcp__web__echo']),
      }),
    ]);
    const result = await web.call('mcp__web__echo', { text: 'over http' }, toolContext());
    expect(result).toEqual({ content: 'over http' });

    const controller = new AbortController();
    const reason = new Error('cancelled');
    setTimeout(() => controller.abort(reason), 50);
    await expect(web.call('mcp__web__hang', {}, toolContext(controller.signal))).rejects.toBe(reason);
  });

  it('reports an HTTP error at start once', async () => {
    const { url } = await httpFixture(['--token', 's3cret']);
    const web = provider(url, { 'x-fixture-token': 'wrong' });
    const { context, events } = recorder();
    await web.start(context);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'mcp.server.failed',
        message: 'MCP server "web" could not start: HTTP 401: unauthorized',
      }),
    ]);
    expect(web.tools()).toEqual([]);
  });

  it('reports a malformed URL instead of throwing', async () => {
    const web = provider('not a url');
    const { context, failed } = recorder();
    await web.start(context);
    expect(failed().map((event) => event.message)).toEqual([
      'MCP server "web" could not start: invalid URL "not a url"',
    ]);
  });

  it('reports a refused connection', async () => {
    const { url, child } = await httpFixture();
    await killAndWait(child);
    const web = provider(url);
    const { context, failed } = recorder();
    await web.start(context);
    expect(failed()).toHaveLength(1);
    expect(failed()[0]?.message).toMatch(/could not start: fetch failed \(.*ECONNREFUSED/);
  });

  it('marks the server down once when it disappears, and reconnects once it is back', async () => {
    const first = await httpFixture();
    let clock = 0;
    const web = provider(first.url, {}, { now: () => clock, retryCooldownMs: 1_000 });
    const { context, failed, ready } = recorder();
    await web.start(context);
    await killAndWait(first.child);

    // Either this call or the transport's own SSE reconnection notices first; both end the same way.
    await expect(web.call('mcp__web__echo', { text: 'x' }, toolContext())).rejects.toThrow(
      /stopped during the call: fetch failed|unavailable: fetch failed/,
    );
    await expect(web.call('mcp__web__echo', { text: 'x' }, toolContext())).rejects.toThrow(/unavailable/);
    expect(failed()).toHaveLength(1);
    expect(failed()[0]?.retryInSeconds).toBe(1);
    expect(web.tools()).toEqual([]);

    // The server comes back on the same port; the next tools() after the cool-down reconnects.
    await httpFixture([], Number(new URL(first.url).port));
    clock += 1_000;
    expect(web.tools()).toEqual([]);
    await waitUntil(() => ready().length === 2, 'the server to be ready again', {
      seen: () => JSON.stringify(failed()),
    });
    expect(failed()).toHaveLength(1);
    expect((await web.call('mcp__web__echo', { text: 'again' }, toolContext())).content).toBe('again');
  });
});
