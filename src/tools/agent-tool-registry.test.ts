import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../types/messages.js';
import type { ToolContext, ToolEventInput, ToolResult } from '../types/tool.js';
import { createAgentToolRegistry, truncateToolResult } from './agent-tool-registry.js';
import type { ToolProvider } from './tool-provider.js';

const def = (
  name: string,
  parameters: ToolDefinition['parameters'] = { type: 'object' },
): ToolDefinition => ({
  name,
  description: name,
  parameters,
});

/** A provider whose calls run `behaviour`, recording the arguments it really received. */
function provider(
  name: string,
  tools: ToolDefinition[],
  behaviour: (
    tool: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ) => Promise<ToolResult> = async (tool) => ({ content: `${tool} ok` }),
) {
  const calls: { tool: string; args: Record<string, unknown> }[] = [];
  let closed = 0;
  const p: ToolProvider & { calls: typeof calls; closed: () => number } = {
    name,
    calls,
    closed: () => closed,
    start: async ({ report }) =>
      report({ type: 'mcp.server.ready', server: name, tools: tools.map((t) => t.name), durationMs: 3 }),
    tools: () => tools,
    call: async (tool, args, context) => {
      calls.push({ tool, args });
      return behaviour(tool, args, context);
    },
    close: async () => {
      closed++;
    },
  };
  return p;
}

const context = (signal = new AbortController().signal): ToolContext => ({
  agentId: 'a',
  phase: 'coordination',
  signal,
});
const base = { timeoutMs: 5_000, maxResultChars: 1_000 };

describe('createAgentToolRegistry', () => {
  it('offers the union of its providers, filtered by allowed_tools and exclude_tools patterns', () => {
    const fs = provider('fs', [def('mcp__fs__read_file'), def('mcp__fs__write_file')]);
    const web = provider('web', [def('mcp__web__fetch')]);
    const names = (options: { allowedTools?: string[]; excludeTools?: string[] }) =>
      createAgentToolRegistry({ providers: [fs, web], ...base, ...options })
        .list({ agentId: 'a', phase: 'coordination' })
        .map((t) => t.name);
    expect(names({})).toEqual(['mcp__fs__read_file', 'mcp__fs__write_file', 'mcp__web__fetch']);
    expect(names({ allowedTools: ['mcp__fs__*'] })).toEqual(['mcp__fs__read_file', 'mcp__fs__write_file']);
    expect(names({ excludeTools: ['mcp__fs__write_file'] })).toEqual([
      'mcp__fs__read_file',
      'mcp__web__fetch',
    ]);
    expect(names({ allowedTools: ['mcp__fs__*'], excludeTools: ['*write*'] })).toEqual([
      'mcp__fs__read_file',
    ]);
  });

  it('does not run a filtered-out tool even if the model names it', async () => {
    const fs = provider('fs', [def('mcp__fs__write_file')]);
    const registry = createAgentToolRegistry({
      providers: [fs],
      ...base,
      excludeTools: ['mcp__fs__write_file'],
    });
    const result = await registry.execute({ id: '1', name: 'mcp__fs__write_file', arguments: {} }, context());
    expect(result.isError).toBe(true);
    expect(fs.calls).toEqual([]);
  });

  it('returns schema violations as a tool error the model can fix, and runs the corrected call', async () => {
    const schema = {
      type: 'object',
      properties: { path: { type: 'string' }, mode: { enum: ['a', 'w'] } },
      required: ['path'],
      additionalProperties: false,
    };
    const fs = provider('fs', [def('mcp__fs__write', schema)]);
    const registry = createAgentToolRegistry({ providers: [fs], ...base });
    const bad = await registry.execute(
      { id: '1', name: 'mcp__fs__write', arguments: { mode: 'x', extra: 1 } },
      context(),
    );
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain("must have required property 'path'");
    expect(bad.content).toContain('unexpected property "extra"');
    expect(bad.content).toContain('arguments.mode must be one of "a", "w"');
    expect(fs.calls).toEqual([]);
    const notJson = await registry.execute(
      { id: '2', name: 'mcp__fs__write', arguments: '{"path": ' },
      context(),
    );
    expect(notJson).toMatchObject({ isError: true, content: expect.stringMatching(/not valid JSON/) });
    const good = await registry.execute(
      { id: '3', name: 'mcp__fs__write', arguments: { path: 'x' } },
      context(),
    );
    expect(good).toEqual({ content: 'mcp__fs__write ok', isError: false });
    expect(fs.calls).toEqual([{ tool: 'mcp__fs__write', args: { path: 'x' } }]);
  });

  it('stops a call at the timeout even when the provider ignores its signal', async () => {
    let aborted = false;
    const slow = provider('slow', [def('mcp__slow__wait')], (_tool, _args, { signal }) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => undefined);
    });
    const registry = createAgentToolRegistry({ providers: [slow], ...base, timeoutMs: 50 });
    const result = await registry.execute({ id: '1', name: 'mcp__slow__wait', arguments: {} }, context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/did not finish within 0\.05s.*tool_timeout_seconds/);
    expect(aborted).toBe(true);
  });

  it("gives a tool its provider's longer minimum time (media generation), and keeps the limit in the message", async () => {
    const timers: number[] = [];
    const finish = () =>
      new Promise<ToolResult>((resolve) => {
        // Released only after the registry's own timer would have fired at `timeoutMs`.
        timers.push(1);
        setTimeout(() => resolve({ content: 'video saved' }), 60);
      });
    const media = provider('media', [def('generate_video'), def('generate_image')], finish);
    const long: ToolProvider = {
      ...media,
      minTimeoutMs: (tool) => (tool === 'generate_video' ? 600_000 : undefined),
    };
    const registry = createAgentToolRegistry({ providers: [long], ...base, timeoutMs: 5 });
    const video = await registry.execute({ id: '1', name: 'generate_video', arguments: {} }, context());
    expect(video).toEqual({ content: 'video saved', isError: false });
    const image = await registry.execute({ id: '2', name: 'generate_image', arguments: {} }, context());
    expect(image.isError).toBe(true);
    expect(image.content).toMatch(/did not finish within 0\.005s/);
    expect(timers).toHaveLength(2);
  });

  it('turns a thrown error into a tool error, but lets cancellation through', async () => {
    const broken = provider('b', [def('boom')], async () => {
      throw new Error('disk on fire');
    });
    const registry = createAgentToolRegistry({ providers: [broken], ...base });
    expect(await registry.execute({ id: '1', name: 'boom', arguments: {} }, context())).toEqual({
      content: 'Tool boom failed: disk on fire',
      isError: true,
    });
    const controller = new AbortController();
    const hanging = provider(
      'h',
      [def('hang')],
      (_t, _a, { signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    const cancellable = createAgentToolRegistry({ providers: [hanging], ...base });
    const pending = cancellable.execute({ id: '1', name: 'hang', arguments: {} }, context(controller.signal));
    controller.abort(new Error('cancelled by user'));
    await expect(pending).rejects.toThrow('cancelled by user');
  });

  it('truncates long results with a note', async () => {
    const big = provider('big', [def('big')], async () => ({ content: 'x'.repeat(5_000) }));
    const registry = createAgentToolRegistry({ providers: [big], ...base, maxResultChars: 100 });
    const result = await registry.execute({ id: '1', name: 'big', arguments: {} }, context());
    expect(result.content.startsWith('x'.repeat(100) + '\n')).toBe(true);
    expect(result.content).toMatch(/\[truncated: showing the first 100 of 5000 characters\]$/);
    expect(truncateToolResult('short', 100)).toBe('short');
  });

  it('starts providers with the agent id stamped on their reports, and closes them all', async () => {
    const fs = provider('fs', [def('mcp__fs__read'), def('mcp__fs__write')]);
    const web = provider('web', [def('mcp__web__fetch')]);
    const registry = createAgentToolRegistry({
      providers: [fs, web],
      ...base,
      excludeTools: ['mcp__fs__write'],
    });
    const events: ToolEventInput[] = [];
    await registry.start?.({
      agentId: 'a',
      signal: new AbortController().signal,
      emit: (e) => events.push(e),
    });
    expect(events).toEqual([
      { type: 'mcp.server.ready', agentId: 'a', server: 'fs', tools: ['mcp__fs__read'], durationMs: 3 },
      { type: 'mcp.server.ready', agentId: 'a', server: 'web', tools: ['mcp__web__fetch'], durationMs: 3 },
    ]);
    await registry.close?.();
    expect([fs.closed(), web.closed()]).toEqual([1, 1]);
  });
});
