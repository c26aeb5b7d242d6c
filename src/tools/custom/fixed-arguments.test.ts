import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from '../../types/tool.js';
import { defineTool } from '../define-tool.js';
import { customToolProvider } from './custom-tool-provider.js';
import { withFixedArguments } from './fixed-arguments.js';
import { loadCustomTools } from './load-custom-tools.js';

const context: ToolContext = {
  agentId: 'agent_a',
  phase: 'coordination',
  signal: new AbortController().signal,
};

/** A browser-like tool that reports the arguments it ran with. */
const browse = defineTool({
  name: 'browse',
  description: 'Opens a page',
  parameters: {
    type: 'object',
    properties: {
      url: { type: 'string' },
      headless: { type: 'boolean' },
      width: { type: 'integer' },
      screenshot: { type: 'boolean' },
    },
    required: ['url', 'headless', 'width'],
    additionalProperties: false,
  },
  execute: (args) => args,
});

const fixed = withFixedArguments(browse, {
  preset: { headless: true, width: 1024 },
  defaults: { screenshot: true },
});

async function call(args: Record<string, unknown>) {
  return customToolProvider([fixed]).call('browse', args, context);
}

describe('withFixedArguments (preset_args, default_params)', () => {
  it('hides preset arguments from the model and shows defaults as optional with their default', () => {
    const [definition] = customToolProvider([fixed]).tools();
    expect(definition?.parameters).toEqual({
      type: 'object',
      properties: { url: { type: 'string' }, screenshot: { type: 'boolean', default: true } },
      required: ['url'],
      additionalProperties: false,
    });
  });

  it('merges the presets and the defaults into a call that gives neither', async () => {
    const result = await call({ url: 'http://127.0.0.1/' });
    expect(JSON.parse(result.content as string)).toEqual({
      url: 'http://127.0.0.1/',
      headless: true,
      width: 1024,
      screenshot: true,
    });
  });

  it("replaces a model's value for a preset argument with the config's (the model cannot override it)", async () => {
    const result = await call({ url: 'http://127.0.0.1/', headless: false, width: 99999 });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content as string)).toMatchObject({ headless: true, width: 1024 });
  });

  it("lets the model's own value win over a default", async () => {
    const result = await call({ url: 'http://127.0.0.1/', screenshot: false });
    expect(JSON.parse(result.content as string)).toMatchObject({ screenshot: false });
  });

  it('does not change the presets or defaults when a tool mutates its arguments', async () => {
    const mutating = withFixedArguments(
      defineTool({
        name: 'mutate',
        description: 'Mutates',
        parameters: z.object({ options: z.object({ tags: z.array(z.string()) }) }),
        execute: (args) => {
          args.options.tags.push('changed');
          return args.options.tags;
        },
      }),
      { preset: { options: { tags: ['fixed'] } } },
    );
    const provider = customToolProvider([mutating]);
    await provider.call('mutate', {}, context);
    const second = await provider.call('mutate', {}, context);
    expect(JSON.parse(second.content as string)).toEqual(['fixed', 'changed']);
  });

  it('reports a preset value the tool rejects as a tool error naming the argument', async () => {
    const wrong = withFixedArguments(browse, { preset: { headless: 'yes', width: 1024 } });
    const result = await customToolProvider([wrong]).call('browse', { url: 'x' }, context);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('headless');
  });
});

describe('loadCustomTools with preset_args and default_params', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'massgen-fixed-args-'));
    await writeFile(join(dir, 'tools.mjs'), 'export function open(args) { return args; }\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("applies a config entry's fixed arguments to the loaded tool", async () => {
    const [tool] = await loadCustomTools(
      [
        {
          name: 'open',
          path: join(dir, 'tools.mjs'),
          function: 'open',
          parameters: { type: 'object', properties: { path: { type: 'string' }, root: { type: 'string' } } },
          fixed: { preset: { root: '/srv/data' }, defaults: { path: 'index.html' } },
        },
      ],
      { where: 'custom_tools' },
    );
    if (!tool) throw new Error('no tool loaded');
    expect(Object.keys(tool.parameters.properties as object)).toEqual(['path']);
    const result = await customToolProvider([tool]).call('open', { root: '/etc' }, context);
    expect(JSON.parse(result.content as string)).toEqual({ path: 'index.html', root: '/srv/data' });
  });
});
