import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../../types/tool.js';
import { defineTool } from '../define-tool.js';
import { customToolProvider, formatToolOutput } from './custom-tool-provider.js';
import { loadCustomTools } from './load-custom-tools.js';

const fixtures = resolve(import.meta.dirname, '../../../test/fixtures/custom-tools');
const plain = join(fixtures, 'plain-tools.mjs');

function contextWith(signal = new AbortController().signal): ToolContext {
  return { agentId: 'agent_b', phase: 'presentation', signal };
}

async function plainProvider(...functions: string[]) {
  const tools = await loadCustomTools(
    functions.map((fn) => ({ name: fn, path: plain, function: fn, parameters: { type: 'object' } })),
    { where: 'custom_tools' },
  );
  return customToolProvider(tools);
}

describe('customToolProvider', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Current weather',
    parameters: z.object({ city: z.string() }),
    readOnly: true,
    execute: ({ city }, context) => ({ city, phase: context.phase, agent: context.agentId }),
  });
  const note = defineTool({
    name: 'note',
    description: 'Takes a note',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: (args) => `noted: ${String(args.text)}`,
  });

  it('offers the definitions, annotations only where declared, and starts and closes as no-ops', async () => {
    const provider = customToolProvider([weather, note]);
    expect(provider.name).toBe('custom_tools');
    expect(customToolProvider([], 'mine').name).toBe('mine');
    await provider.start({ signal: new AbortController().signal, report: () => {} });
    expect(provider.tools()).toEqual([
      {
        name: 'weather',
        description: 'Current weather',
        parameters: weather.parameters,
        annotations: { readOnly: true },
      },
      { name: 'note', description: 'Takes a note', parameters: note.parameters },
    ]);
    await provider.close();
    await provider.close();
  });

  it('runs a tool with the caller’s context and formats objects as JSON', async () => {
    const provider = customToolProvider([weather, note]);
    const result = await provider.call('weather', { city: 'Kyiv' }, contextWith());
    expect(result).toEqual({
      content: JSON.stringify({ city: 'Kyiv', phase: 'presentation', agent: 'agent_b' }, null, 2),
    });
    expect(await provider.call('note', { text: 'hi' }, contextWith())).toEqual({ content: 'noted: hi' });
  });

  it('returns argument violations as a tool-error result the model can act on', async () => {
    const provider = customToolProvider([weather, note]);
    expect(await provider.call('note', { text: 3, extra: 1 }, contextWith())).toEqual({
      content:
        'Invalid arguments for note: arguments.text must be string. Fix the arguments and call the tool again.',
      isError: true,
    });
    const zod = await provider.call('weather', {}, contextWith());
    expect(zod.isError).toBe(true);
    expect(zod.content).toMatch(/^Invalid arguments for weather: city: .*Fix the arguments/);
  });

  it('lets tool errors propagate and wraps non-Error throws', async () => {
    const provider = await plainProvider('explode', 'explodeWithString');
    await expect(provider.call('explode', {}, contextWith())).rejects.toThrow('the tool exploded');
    const error: unknown = await provider
      .call('explodeWithString', {}, contextWith())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('plain string failure');
    expect((error as Error).cause).toBe('plain string failure');
  });

  it('formats empty and circular results', async () => {
    const provider = await plainProvider('nothing', 'circular');
    expect(await provider.call('nothing', {}, contextWith())).toEqual({ content: '(no output)' });
    expect(await provider.call('circular', {}, contextWith())).toEqual({ content: '[object Object]' });
  });

  it('stops waiting for a tool that ignores the signal once it aborts', async () => {
    const provider = await plainProvider('hang');
    const controller = new AbortController();
    const call = provider.call('hang', {}, contextWith(controller.signal));
    const reason = new Error('tool timed out');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
  });

  it('refuses unknown tool names', async () => {
    await expect(customToolProvider([note]).call('nope', {}, contextWith())).rejects.toThrow(
      'custom_tools has no tool named "nope"',
    );
  });
});

describe('formatToolOutput', () => {
  it.each([
    ['text', 'text'],
    ['', ''],
    [undefined, '(no output)'],
    [null, '(no output)'],
    [42, '42'],
    [[1, 'a'], '[\n  1,\n  "a"\n]'],
    [10n, '10'],
    [Symbol('s'), 'Symbol(s)'],
    [Object.create(null) as object, '{}'],
  ])('formats %o', (value, expected) => {
    expect(formatToolOutput(value)).toBe(expected);
  });

  it('falls back when an object has neither JSON nor toString', () => {
    const value = Object.create(null) as { self?: unknown };
    value.self = value;
    expect(formatToolOutput(value)).toBe('[object Object]');
  });
});
