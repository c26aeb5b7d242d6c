import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, isTool, withToolOverrides, type ToolExecutionContext } from './define-tool.js';

const context: ToolExecutionContext = {
  agentId: 'agent_a',
  phase: 'coordination',
  signal: new AbortController().signal,
};

describe('defineTool with zod', () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Current weather',
    parameters: z.object({
      city: z.string().describe('City name'),
      days: z.number().int().min(1).default(1),
      tags: z.array(z.object({ label: z.string() })).optional(),
    }),
    readOnly: true,
    execute: ({ city, days }) => `${city} for ${days} day(s)`,
  });

  it('sends a draft-07 object schema without $schema, with defaults optional', () => {
    expect(weather.parameters).not.toHaveProperty('$schema');
    expect(weather.parameters).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', default: 1 },
      },
      required: ['city'],
    });
  });

  it('parses and normalises arguments', () => {
    expect(weather.parse({ city: 'Paris' })).toEqual({ ok: true, value: { city: 'Paris', days: 1 } });
  });

  it('lists every violation as `path: message`, one per line', () => {
    const result = weather.parse({ city: 3, days: 0, tags: [{ label: 1 }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = result.message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^city: .*expected string/);
    expect(lines[1]).toMatch(/^days: /);
    expect(lines[2]).toMatch(/^tags\[0\]\.label: /);
  });

  it('names the root when the arguments are not an object', () => {
    const result = weather.parse('Paris');
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/^arguments: .*object/) });
  });

  it('executes with the typed arguments, sync results become promises', async () => {
    await expect(weather.execute({ city: 'Oslo', days: 2 }, context)).resolves.toBe('Oslo for 2 day(s)');
  });

  it('turns readOnly into annotations and is recognised by isTool', () => {
    expect(weather.annotations).toEqual({ readOnly: true });
    expect(isTool(weather)).toBe(true);
    expect(Object.isFrozen(weather)).toBe(true);
  });

  it('rejects schemas that are not objects or cannot be expressed in JSON Schema', () => {
    expect(() =>
      defineTool({ name: 't', description: 'd', parameters: z.string(), execute: () => 1 }),
    ).toThrow(/must be a zod object schema/);
    expect(() =>
      defineTool({ name: 't', description: 'd', parameters: z.object({ when: z.date() }), execute: () => 1 }),
    ).toThrow(/cannot convert the zod schema to JSON Schema: Date cannot be represented/);
  });
});

describe('defineTool with JSON Schema', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['c', 'f'], default: 'c' },
    },
    required: ['city'],
    additionalProperties: false,
  };
  const weather = defineTool({
    name: 'weather-json',
    description: 'Current weather',
    parameters: schema,
    destructive: false,
    execute: (args) => args,
  });

  it('sends the schema without $schema', () => {
    const { $schema: _dropped, ...rest } = schema;
    expect(weather.parameters).toEqual(rest);
  });

  it('fills defaults without touching the caller’s arguments', () => {
    const args = { city: 'Rome' };
    expect(weather.parse(args)).toEqual({ ok: true, value: { city: 'Rome', unit: 'c' } });
    expect(args).toEqual({ city: 'Rome' });
  });

  it('lists every ajv violation on its own line', () => {
    const result = weather.parse({ city: 7, unit: 'k', extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message.split('\n').sort()).toEqual([
      'arguments has an unexpected property "extra"',
      'arguments.city must be string',
      'arguments.unit must be one of "c", "f"',
    ]);
    expect(weather.parse({})).toEqual({ ok: false, message: "arguments must have required property 'city'" });
    expect(weather.parse('raw text')).toEqual({ ok: false, message: 'arguments must be object' });
  });

  it('keeps false annotations and omits absent ones', () => {
    expect(weather.annotations).toEqual({ destructive: false });
    const plain = defineTool({ name: 'plain', description: 'd', parameters: {}, execute: () => 1 });
    expect(plain).not.toHaveProperty('annotations');
    expect(plain.parameters).toEqual({ type: 'object' });
  });

  it('rejects non-object and invalid schemas', () => {
    expect(() =>
      defineTool({ name: 't', description: 'd', parameters: { type: 'array' }, execute: () => 1 }),
    ).toThrow(/must describe an object/);
    expect(() =>
      defineTool({
        name: 't',
        description: 'd',
        parameters: { type: 'object', properties: { a: { type: 'strng' } } },
        execute: () => 1,
      }),
    ).toThrow(TypeError);
  });
});

describe('tool names', () => {
  const make = (name: string) => () =>
    defineTool({ name, description: 'd', parameters: { type: 'object' }, execute: () => 1 });

  it('accepts letters, digits, _ and - up to 64 characters', () => {
    expect(make('get_weather-2')).not.toThrow();
    expect(make('a'.repeat(64))).not.toThrow();
  });

  it.each(['', 'has space', 'dots.not.allowed', 'a'.repeat(65), 'émoji'])('rejects %j', (name) => {
    expect(make(name)).toThrow(TypeError);
    expect(make(name)).toThrow(/invalid tool name/);
  });

  it.each(['new_answer', 'vote'])('rejects the workflow tool name %s', (name) => {
    expect(make(name)).toThrow(/reserved for the coordination workflow/);
  });
});

describe('isTool and withToolOverrides', () => {
  const base = defineTool({
    name: 'base',
    description: 'Base tool',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    readOnly: true,
    execute: (args) => args.n,
  });

  it('does not mistake look-alikes for tools', () => {
    expect(isTool({ ...base })).toBe(false);
    expect(isTool(null)).toBe(false);
    expect(isTool(() => 1)).toBe(false);
  });

  it('renames while keeping parsing, execution and merging annotations', async () => {
    const renamed = withToolOverrides(base, { name: 'renamed', destructive: false });
    expect(isTool(renamed)).toBe(true);
    expect(renamed).toMatchObject({ name: 'renamed', description: 'Base tool' });
    expect(renamed.annotations).toEqual({ readOnly: true, destructive: false });
    expect(renamed.parse({ n: 'x' })).toEqual({ ok: false, message: 'arguments.n must be number' });
    await expect(renamed.execute({ n: 4 }, context)).resolves.toBe(4);
    expect(() => withToolOverrides(base, { name: 'vote' })).toThrow(TypeError);
  });
});
