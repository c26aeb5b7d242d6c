import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../tool-provider.js';
import { createMcpToolProvider, type McpProviderOptions, type McpServerSettings } from './index.js';
import { childPid, nodeServer, recorder, serverPaths, toolContext } from './mcp.test-support.js';
import { waitUntil } from '../../../test/support/wait.js';

const open: ToolProvider[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((provider) => provider.close()));
});

function provider(settings: McpServerSettings, options?: McpProviderOptions): ToolProvider {
  const created = createMcpToolProvider('fx', settings, options);
  open.push(created);
  return created;
}

const fixture = (...args: string[]): McpServerSettings => nodeServer(serverPaths.fixture, args);

describe('MCP provider circuit breaker', () => {
  it('marks a crashed server down once, then reconnects after the cool-down', async () => {
    let clock = 1_000;
    const fx = provider(fixture(), { now: () => clock, retryCooldownMs: 10_000 });
    const { context, events, failed, ready } = recorder();
    await fx.start(context);
    const firstPid = childPid(fx);
    expect(ready()).toHaveLength(1);

    await expect(fx.call('mcp__fx__crash', {}, toolContext())).rejects.toThrow(
      /MCP server "fx" stopped during the call: the process exited/,
    );
    expect(failed()).toEqual([
      {
        type: 'mcp.server.failed',
        server: 'fx',
        message: expect.stringMatching(
          /^MCP server "fx" stopped: the process exited \(stderr: .*crashing on request/,
        ),
        retryInSeconds: 10,
      },
    ]);
    expect(fx.tools()).toEqual([]);
    await expect(fx.call('mcp__fx__echo', { text: 'x' }, toolContext())).rejects.toThrow(/unavailable/);

    clock += 9_999;
    expect(fx.tools()).toEqual([]);
    // Not cooled down: still down with its reason. An attempt would be under way at once ("connecting").
    await expect(fx.call('mcp__fx__echo', { text: 'x' }, toolContext())).rejects.toThrow(/unavailable: /);
    expect(events).toHaveLength(2);

    clock += 1;
    expect(fx.tools()).toEqual([]);
    expect(fx.tools()).toEqual([]);
    await waitUntil(() => ready().length === 2, 'the server to be ready again', {
      seen: () => JSON.stringify(events),
    });
    expect(events).toHaveLength(3);
    expect(fx.tools().length).toBeGreaterThan(0);
    expect(childPid(fx)).not.toBe(firstPid);
    expect((await fx.call('mcp__fx__echo', { text: 'back' }, toolContext())).content).toBe('back');
  });

  it('notices a server that dies on its own without any call', async () => {
    const fx = provider(fixture('--exit-after-ms', '800'), { maxRestarts: 0 });
    const { context, failed } = recorder();
    await fx.start(context);
    expect(fx.tools().length).toBeGreaterThan(0);
    await waitUntil(() => failed().length === 1, 'the failure report', {
      seen: () => JSON.stringify(failed()),
    });
    expect(failed()[0]?.retryInSeconds).toBeNull();
    expect(fx.tools()).toEqual([]);
  });

  it('gives up after maxRestarts with retryInSeconds null', async () => {
    let clock = 0;
    const ghost = provider(
      { type: 'stdio', command: 'massgen-no-such-command', args: [], env: {} },
      { now: () => clock, retryCooldownMs: 5_000, maxRestarts: 1 },
    );
    const { context, events, failed } = recorder();
    await ghost.start(context);
    expect(failed().map((e) => e.retryInSeconds)).toEqual([5]);

    clock += 5_000;
    ghost.tools();
    await waitUntil(() => failed().length === 2, 'the second failure report', {
      seen: () => JSON.stringify(failed()),
    });
    expect(failed().map((e) => e.retryInSeconds)).toEqual([5, null]);

    clock += 1_000_000;
    expect(ghost.tools()).toEqual([]);
    // No attempt: still down with its reason (an attempt would be "connecting" at once), nothing reported.
    await expect(ghost.call('mcp__fx__x', {}, toolContext())).rejects.toThrow(/unavailable: /);
    expect(events).toHaveLength(2);
  });
});
