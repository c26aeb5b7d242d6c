import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../tool-provider.js';
import { createMcpToolProvider, type McpProviderOptions, type McpServerSettings } from './index.js';
import { nodeServer, recorder, serverPaths, toolContext } from './mcp.test-support.js';
import { massgenVersion } from '../../util/package-json.js';

const open: ToolProvider[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((provider) => provider.close()));
});

function provider(server: string, settings: McpServerSettings, options?: McpProviderOptions): ToolProvider {
  const created = createMcpToolProvider(server, settings, options);
  open.push(created);
  return created;
}

const fixture = (...args: string[]): McpServerSettings => nodeServer(serverPaths.fixture, args);

describe('MCP provider over stdio', () => {
  it('starts server-everything, lists its tools and calls them', async () => {
    const everything = provider(
      'everything',
      nodeServer(serverPaths.everything, ['stdio'], { MASSGEN_FIXTURE_VAR: 'passed-through' }),
    );
    const { context, events, ready } = recorder();
    await everything.start(context);

    expect(events).toHaveLength(1);
    const names = everything.tools().map((tool) => tool.name);
    expect(ready()[0]?.tools).toEqual(names);
    expect(names).toEqual(expect.arrayContaining(['mcp__everything__echo', 'mcp__everything__get-sum']));

    const echo = await everything.call('mcp__everything__echo', { message: 'hello mcp' }, toolContext());
    expect(echo.content).toContain('hello mcp');
    expect(echo.isError).toBeUndefined();
    const sum = await everything.call('mcp__everything__get-sum', { a: 2, b: 40 }, toolContext());
    expect(sum.content).toContain('42');
    const image = await everything.call('mcp__everything__get-tiny-image', {}, toolContext());
    expect(image.content).toMatch(/\[image: image\/png, \d+ bytes base64\]/);

    // Our environment stays ours: only the SDK's safe defaults plus the configured variables arrive.
    const env = await everything.call('mcp__everything__get-env', {}, toolContext());
    expect(env.content).toContain('passed-through');
    expect(env.content).not.toContain('VITEST');
  });

  it('writes and reads a file through server-filesystem and maps its annotations', async () => {
    const dir = realpathSync(await mkdtemp(path.join(os.tmpdir(), 'massgen-mcp-')));
    try {
      const files = provider('files', nodeServer(serverPaths.filesystem, [dir]));
      await files.start(recorder().context);
      const byName = new Map(files.tools().map((tool) => [tool.name, tool]));
      expect(byName.get('mcp__files__write_file')?.annotations).toEqual({
        readOnly: false,
        destructive: true,
      });
      expect(byName.get('mcp__files__read_text_file')?.annotations).toEqual({ readOnly: true });

      const file = path.join(dir, 'note.txt');
      const written = await files.call(
        'mcp__files__write_file',
        { path: file, content: 'hi there' },
        toolContext(),
      );
      expect(written.isError).toBeUndefined();
      expect(await readFile(file, 'utf8')).toBe('hi there');
      const read = await files.call('mcp__files__read_text_file', { path: file }, toolContext());
      expect(read.content).toBe('hi there');

      const outside = await files.call(
        'mcp__files__read_text_file',
        { path: '/etc/hostname' },
        toolContext(),
      );
      expect(outside.isError).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('follows nextCursor and maps the fixture annotations', async () => {
    const paged = provider('fx', fixture('--page-size', '2'));
    await paged.start(recorder().context);
    const tools = paged.tools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'mcp__fx__echo',
      'mcp__fx__crash',
      'mcp__fx__hang',
      'mcp__fx__big',
      'mcp__fx__annotated_read',
      'mcp__fx__annotated_write',
    ]);
    expect(tools.find((t) => t.name === 'mcp__fx__annotated_read')?.annotations).toEqual({ readOnly: true });
    expect(tools.find((t) => t.name === 'mcp__fx__annotated_write')?.annotations).toEqual({
      destructive: true,
    });
    expect(tools.find((t) => t.name === 'mcp__fx__echo')?.annotations).toBeUndefined();
    const big = await paged.call('mcp__fx__big', { size: 100_000 }, toolContext());
    expect(big.content).toHaveLength(100_000);
  });

  it('reports a command that does not exist once, offers no tools and resolves', async () => {
    const missing = provider('ghost', {
      type: 'stdio',
      command: 'massgen-no-such-command',
      args: [],
      env: {},
    });
    const { context, events } = recorder();
    await missing.start(context);
    expect(events).toEqual([
      {
        type: 'mcp.server.failed',
        server: 'ghost',
        message: expect.stringMatching(
          /^MCP server "ghost" could not start: spawn massgen-no-such-command ENOENT/,
        ),
        retryInSeconds: 30,
      },
    ]);
    expect(missing.tools()).toEqual([]);
    await expect(missing.call('mcp__ghost__x', {}, toolContext())).rejects.toThrow(/unavailable/);
  });

  it('puts the stderr tail of a server that exits at start into the message', async () => {
    const failing = provider('early', fixture('--fail-at-start'));
    const { context, failed } = recorder();
    await failing.start(context);
    expect(failed()).toHaveLength(1);
    expect(failed()[0]?.message).toMatch(
      /could not start: the process exited \(stderr: .*missing FIXTURE_API_KEY\)/,
    );
  });

  it("introduces itself with massgen's package version", async () => {
    const fx = provider('fx', fixture('--client-info'));
    await fx.start(recorder().context);
    const result = await fx.call('mcp__fx__client_info', {}, toolContext());
    expect(result.content).toBe(`massgen ${massgenVersion()}`);
    expect(massgenVersion()).toBe(
      (
        JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
          version: string;
        }
      ).version,
    );
  });

  it('rejects an unknown tool name', async () => {
    const fx = provider('fx', fixture());
    await fx.start(recorder().context);
    await expect(fx.call('mcp__fx__nope', {}, toolContext())).rejects.toThrow(
      /no tool named "mcp__fx__nope"/,
    );
  });

  it('stops a hanging call promptly when its signal aborts, and stays usable', async () => {
    const fx = provider('fx', fixture());
    await fx.start(recorder().context);
    const controller = new AbortController();
    const reason = new Error('tool timed out');
    setTimeout(() => controller.abort(reason), 100);
    // mcp__fx__hang never answers: only the abort can settle the call (no elapsed-time bound needed).
    await expect(fx.call('mcp__fx__hang', {}, toolContext(controller.signal))).rejects.toBe(reason);
    expect((await fx.call('mcp__fx__echo', { text: 'still here' }, toolContext())).content).toBe(
      'still here',
    );
  });
});
