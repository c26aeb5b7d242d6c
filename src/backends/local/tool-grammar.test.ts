import { afterAll, describe, expect, it } from 'vitest';
import { workflowToolDefinitions } from '../../coordination/workflow-tools.js';
import type { ToolDefinition } from '../../types/messages.js';
import { collect, request } from '../backend.test-support.js';
import { describeWithTinyModel, tinyBackend } from './local.test-support.js';
import { disposeLocalModels } from './model-pool.js';
import { sanitizeSchema } from './schema-subset.js';
import { parseToolCall, toolCallSchema, validateArguments } from './tool-grammar.js';

const ANY = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

describe('sanitizeSchema', () => {
  it('keeps the workflow schemas exact, dropping descriptions and required', () => {
    const [newAnswer, vote] = workflowToolDefinitions(['agent1', 'agent2']);
    expect(sanitizeSchema(newAnswer?.parameters)).toEqual({
      schema: { type: 'object', properties: { content: { type: 'string' } }, additionalProperties: false },
      exact: true,
    });
    expect(sanitizeSchema(vote?.parameters)).toEqual({
      schema: {
        type: 'object',
        properties: { agent_id: { enum: ['agent1', 'agent2'] }, reason: { type: 'string' } },
        additionalProperties: false,
      },
      exact: true,
    });
  });

  it('spells "any value" out instead of leaving an empty schema (which the converter reads as null)', () => {
    expect(sanitizeSchema({})).toEqual({ schema: ANY, exact: true });
    expect(sanitizeSchema(true)).toEqual({ schema: ANY, exact: true });
    expect(sanitizeSchema({ type: 'object' }).schema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: true,
    });
    expect(sanitizeSchema({ type: 'array' }).schema).toEqual({ type: 'array' });
  });

  it('turns anyOf into oneOf and splits type lists that include containers', () => {
    expect(sanitizeSchema({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toEqual({
      schema: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      exact: true,
    });
    expect(sanitizeSchema({ type: ['string', 'null'] })).toEqual({
      schema: { type: ['string', 'null'] },
      exact: true,
    });
    expect(sanitizeSchema({ type: ['array', 'null'], items: { type: 'number' } }).schema).toEqual({
      oneOf: [{ type: 'array', items: { type: 'number' } }, { type: 'null' }],
    });
  });

  it('keeps nested objects, arrays, string lengths and date formats', () => {
    const schema = {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, maxLength: 80 },
        when: { type: 'string', format: 'date' },
        options: {
          type: 'object',
          properties: {
            overwrite: { type: 'boolean' },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          },
          required: ['overwrite'],
        },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false },
      },
      required: ['path'],
    };
    expect(sanitizeSchema(schema)).toEqual({
      schema: {
        type: 'object',
        properties: {
          path: { type: 'string', minLength: 1, maxLength: 80 },
          when: { type: 'string', format: 'date' },
          options: {
            type: 'object',
            properties: {
              overwrite: { type: 'boolean' },
              tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
            },
            additionalProperties: false,
          },
          pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], maxItems: 2 },
        },
        additionalProperties: false,
      },
      exact: true,
    });
  });

  it('moves definitions to $defs and points references there', () => {
    const { schema, exact } = sanitizeSchema({
      type: 'object',
      properties: { point: { $ref: '#/definitions/Point' } },
      definitions: { Point: { type: 'object', properties: { x: { type: 'number' } } } },
    });
    expect(exact).toBe(true);
    expect(schema).toEqual({
      type: 'object',
      properties: { point: { $ref: '#/$defs/Point' } },
      additionalProperties: false,
      $defs: {
        Point: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
      },
    });
  });

  it('reads a one-element allOf as its element', () => {
    expect(sanitizeSchema({ allOf: [{ type: 'string' }], description: 'x' })).toEqual({
      schema: { type: 'string' },
      exact: true,
    });
  });

  it('loosens what the grammar cannot enforce and says so', () => {
    for (const schema of [
      { type: 'integer', minimum: 1 },
      { type: 'string', pattern: '^a' },
      { type: 'string', format: 'email' },
      { allOf: [{ type: 'object' }, { required: ['a'] }] },
      { oneOf: [{ type: 'string' }, { type: 'string', maxLength: 3 }] },
      { $ref: '#/definitions/missing' },
      { const: { a: 1 } },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      false,
    ]) {
      expect(sanitizeSchema(schema).exact, JSON.stringify(schema)).toBe(false);
    }
    expect(sanitizeSchema({ type: 'integer', minimum: 1 }).schema).toEqual({ type: 'integer' });
  });
});

describe('toolCallSchema', () => {
  it('is the union of { tool: <name>, arguments: <schema> } over the tools', () => {
    const { schema, exact } = toolCallSchema([
      { name: 'a', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
      { name: 'b', inputSchema: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } },
    ]);
    expect(exact).toBe(false);
    expect(schema).toEqual({
      oneOf: [
        {
          type: 'object',
          properties: {
            tool: { const: 'a' },
            arguments: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false },
          },
        },
        {
          type: 'object',
          properties: {
            tool: { const: 'b' },
            arguments: {
              type: 'object',
              properties: { n: { type: 'integer' } },
              additionalProperties: false,
            },
          },
        },
      ],
    });
  });

  it('needs at least one tool', () => {
    expect(() => toolCallSchema([])).toThrow(/at least one tool/);
  });
});

describe('parseToolCall and validateArguments', () => {
  it('reads a call naming an offered tool', () => {
    expect(parseToolCall('{"tool": "vote", "arguments": {"agent_id": "agent1"}}', ['vote'])).toEqual({
      toolName: 'vote',
      input: { agent_id: 'agent1' },
    });
    expect(parseToolCall('{"tool": "vote"}', ['vote'])).toEqual({ toolName: 'vote', input: {} });
  });

  it('explains what is wrong with anything else', () => {
    expect(parseToolCall('{"tool": "vo', ['vote'])).toBe('the tool call is not complete JSON');
    expect(parseToolCall('[1]', ['vote'])).toBe('the tool call names no tool');
    expect(parseToolCall('{"tool": "rm"}', ['vote'])).toBe('the tool call names an unknown tool "rm"');
  });

  it('validates arguments against the original schema', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] };
    expect(validateArguments(schema, { n: 2 })).toBeUndefined();
    expect(validateArguments(schema, { n: 0 })).toMatch(/^n: /);
    expect(validateArguments(schema, {})).toMatch(/^n: /);
    const withDefinitions = {
      type: 'object',
      properties: { p: { $ref: '#/definitions/P' } },
      required: ['p'],
      definitions: { P: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } },
    };
    expect(validateArguments(withDefinitions, { p: { x: 1 } })).toBeUndefined();
    expect(validateArguments(withDefinitions, { p: { x: 'a' } })).toMatch(/^p\.x: /);
    // A schema zod cannot read never blocks a call.
    expect(validateArguments({ not: { type: 'string' } }, 'x')).toBeUndefined();
  });
});

/** Schemas that need every sanitizer rewrite, each offered alone to the real model. */
const awkwardTools: ToolDefinition[] = [
  {
    name: 'any_args',
    description: 'Takes anything.',
    parameters: { type: 'object', properties: { value: {} }, required: ['value'] },
  },
  {
    name: 'either',
    description: 'A string or a number, maybe null.',
    parameters: {
      type: 'object',
      properties: { x: { anyOf: [{ type: 'string' }, { type: 'number' }] }, y: { type: ['string', 'null'] } },
      required: ['x', 'y'],
    },
  },
  {
    name: 'with_refs',
    description: 'Uses definitions.',
    parameters: {
      type: 'object',
      properties: { from: { $ref: '#/definitions/Point' }, to: { allOf: [{ $ref: '#/definitions/Point' }] } },
      required: ['from', 'to'],
      definitions: {
        Point: { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'integer' } } },
      },
    },
  },
  {
    name: 'tuple_and_date',
    description: 'A pair and a date.',
    parameters: {
      type: 'object',
      properties: {
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'boolean' }], additionalItems: false },
        day: { type: 'string', format: 'date' },
        extra: { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 2 },
      },
      required: ['pair', 'day', 'extra'],
    },
  },
];

describeWithTinyModel('tool grammars on the real model', () => {
  afterAll(() => disposeLocalModels());

  it('compile for every rewritten schema and yield calls that validate', async () => {
    const { backend } = tinyBackend({ maxTokens: 400 });
    for (const tool of awkwardTools) {
      for (let run = 0; run < 2; run++) {
        const parts = await collect(
          backend.stream(
            request({
              messages: [{ role: 'user', content: 'Use the tool.' }],
              tools: [tool],
              toolChoice: 'required',
            }),
          ),
        );
        const calls = parts.flatMap((p) => (p.type === 'tool-call' ? [p.call] : []));
        expect(calls, `${tool.name}: ${JSON.stringify(parts)}`).toHaveLength(1);
        expect(calls[0]?.name).toBe(tool.name);
        expect(
          validateArguments(tool.parameters, calls[0]?.arguments),
          JSON.stringify(calls[0]),
        ).toBeUndefined();
      }
    }
  });
});

describe('what the grammar cannot prevent', () => {
  it('repairArguments rounds integers (llama.cpp allows exponents) and clamps bounds', async () => {
    const { repairArguments } = await import('./tool-grammar.js');
    const schema = {
      type: 'object',
      properties: {
        stars: { type: 'integer', minimum: 0, maximum: 5 },
        ratio: { type: 'number', exclusiveMaximum: 1 },
        list: { type: 'array', items: { type: 'integer' } },
        note: { type: 'object', properties: { count: { type: 'integer' } } },
      },
    };
    expect(
      repairArguments(schema, {
        stars: -0.00052,
        ratio: 3,
        list: [1.6, 2],
        note: { count: 5.2e-1 },
        other: 'x',
      }),
    ).toEqual({ stars: 0, ratio: 1 - 1e-9, list: [2, 2], note: { count: 1 }, other: 'x' });
    expect(repairArguments(schema, { stars: 9 })).toEqual({ stars: 5 });
  });

  it('toolCallSchema with a character budget caps every free string, shared within each tool', async () => {
    const { toolCallSchema } = await import('./tool-grammar.js');
    const { schema } = toolCallSchema(
      [
        { name: 'new_answer', inputSchema: { type: 'object', properties: { content: { type: 'string' } } } },
        {
          name: 'vote',
          inputSchema: {
            type: 'object',
            properties: {
              agent_id: { type: 'string', enum: ['agent1'] },
              reason: { type: 'string', maxLength: 50 },
            },
          },
        },
      ],
      600,
    );
    const text = JSON.stringify(schema);
    expect(text).toContain('"content":{"type":"string","maxLength":600}');
    // An existing smaller maxLength is kept; enums are not strings to cap.
    expect(text).toContain('"reason":{"type":"string","maxLength":50}');
    expect(text).toContain('"agent_id":{"enum":["agent1"]}');
  });
});
