import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../tool-provider.js';
import { createMcpToolProvider, type McpProviderOptions, type McpServerSettings } from './index.js';
import {
  childPid,
  isAlive,
  nodeServer,
  pidsWithArg,
  recorder,
  serverPaths,
  toolContext,
} from './mcp.test-support.js';
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

/** A node process that never speaks MCP, tagged so `ps` can find it. */
function silentServer(): { settings: McpServerSettings; marker: string } {
  const marker = `massgen-silent-${randomUUID()}`;
  return {
    marker,
    settings: {
      type: 'stdio',
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)', marker],
      env: {},
    },
  };
}

describe('MCP provider lifecycle', () => {
  it('close() ends the child, is idempotent and leaves no tools', async () => {
    const fx = provider(nodeServer(serverPaths.fixture));
    const { context, events } = recorder();
    await fx.start(context);
    const pid = childPid(fx);
    expect(pid).toBeDefined();
    expect(isAlive(pid!)).toBe(true);

    await Promise.all([fx.close(), fx.close()]);
    await fx.close();
    expect(isAlive(pid!)).toBe(false);
    expect(fx.tools()).toEqual([]);
    await expect(fx.call('mcp__fx__echo', { text: 'x' }, toolContext())).rejects.toThrow(/unavailable/);
    // A deliberate close is not a failure.
    expect(events.map((event) => event.type)).toEqual(['mcp.server.ready']);
  });

  it('close() kills a child that ignores end of input and SIGTERM', async () => {
    const fx = provider(nodeServer(serverPaths.fixture, ['--stubborn']));
    await fx.start(recorder().context);
    const pid = childPid(fx)!;
    // A close that only asked would wait forever (the test's timeout); no elapsed-time bound needed.
    await fx.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('close() during a call rejects the call without reporting a failure', async () => {
    const fx = provider(nodeServer(serverPaths.fixture));
    const { context, events } = recorder();
    await fx.start(context);
    const hanging = fx.call('mcp__fx__hang', {}, toolContext());
    await fx.close();
    await expect(hanging).rejects.toThrow('MCP server "fx" was closed during the call');
    expect(events).toHaveLength(1);
  });

  it('reports a server that never answers within startTimeoutMs and kills it', async () => {
    const { settings, marker } = silentServer();
    const hung = provider(settings, { startTimeoutMs: 300 });
    const { context, failed } = recorder();
    await hung.start(context);
    expect(failed().map((event) => event.message)).toEqual([
      'MCP server "fx" could not start: no answer within 0.3 s',
    ]);
    expect(pidsWithArg(marker)).toEqual([]);
  });

  it('an abort during start stops the attempt, kills the child and reports nothing', async () => {
    const { settings, marker } = silentServer();
    let clock = 0;
    // A start timeout far beyond the test's own: only the abort can end this attempt in time.
    const hung = provider(settings, { now: () => clock, startTimeoutMs: 3_600_000 });
    const controller = new AbortController();
    const { context, events } = recorder(controller.signal);
    const starting = hung.start(context);
    await waitUntil(() => pidsWithArg(marker).length === 1, 'the server process');
    controller.abort(new Error('run cancelled'));
    await starting;
    expect(events).toEqual([]);
    expect(pidsWithArg(marker)).toEqual([]);
    clock += 1_000_000;
    expect(hung.tools()).toEqual([]);
  });

  it('close() during start ends the attempt and nothing reconnects afterwards', async () => {
    const { settings, marker } = silentServer();
    let clock = 0;
    const hung = provider(settings, { now: () => clock, retryCooldownMs: 1 });
    const { context, events } = recorder();
    const starting = hung.start(context);
    await waitUntil(() => pidsWithArg(marker).length === 1, 'the server process');
    await hung.close();
    await starting;
    clock += 1_000;
    expect(hung.tools()).toEqual([]);
    // Had that reconnected, its server would be running by the time one started after it is: a window
    // as long as a start takes on this machine now, where a fixed pause could be too short.
    const control = silentServer();
    const controlStart = provider(control.settings).start(recorder().context);
    await waitUntil(() => pidsWithArg(control.marker).length === 1, 'the control server process');
    expect(events).toEqual([]);
    expect(pidsWithArg(marker)).toEqual([]);
    await Promise.all(open.splice(0).map((p) => p.close()));
    await controlStart;
  });
});
