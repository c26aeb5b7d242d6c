import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import { isTool, type Tool, type ToolExecutionContext } from '../define-tool.js';
import { loadCustomTools, type CustomToolSettings } from './load-custom-tools.js';

const fixtures = resolve(import.meta.dirname, '../../../test/fixtures/custom-tools');
const fixture = (file: string): string => join(fixtures, file);
const where = 'agents[0].backend.custom_tools';
const context: ToolExecutionContext = {
  agentId: 'agent_a',
  phase: 'coordination',
  signal: new AbortController().signal,
};

async function loadOne(entry: CustomToolSettings): Promise<Tool> {
  const [tool] = await loadCustomTools([entry], { where });
  if (!tool) throw new Error('no tool loaded');
  return tool;
}

/** The ConfigError `loadCustomTools` throws for `entries`. */
async function configError(entries: CustomToolSettings[]): Promise<ConfigError> {
  const error: unknown = await loadCustomTools(entries, { where }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadCustomTools: loading', () => {
  it('loads a TypeScript module through tsx, with its zod schema', async () => {
    const tool = await loadOne({ name: 'weather', path: fixture('weather.ts'), function: 'weather' });
    expect(tool).toMatchObject({ name: 'weather', description: 'Custom tool weather' });
    expect(tool.parameters).toMatchObject({ type: 'object', required: ['city'] });
    const parsed = tool.parse({ city: 'Lima', unit: 'f' });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    await expect(tool.execute(parsed.value, context)).resolves.toEqual({
      city: 'Lima',
      temperature: 70,
      unit: 'f',
      agent: 'agent_a',
    });
  });

  it('evaluates .ts modules with tsx even under vitest', async () => {
    // vite would serve the file without tsx's namespace query: this proves the production path ran.
    const tool = await loadOne({ name: 'module_url', path: fixture('weather.ts'), function: 'moduleUrl' });
    await expect(tool.execute({}, context)).resolves.toContain('tsx-namespace=');
  });

  it('loads a .mjs plain function described by parameters:', async () => {
    const tool = await loadOne({
      name: 'echo',
      description: 'Echoes text',
      path: fixture('plain-tools.mjs'),
      function: 'echo',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      readOnly: true,
    });
    expect(tool).toMatchObject({ name: 'echo', description: 'Echoes text', annotations: { readOnly: true } });
    expect(tool.parse({ text: 1 })).toEqual({ ok: false, message: 'arguments.text must be string' });
    await expect(tool.execute({ text: 'hi' }, context)).resolves.toBe('hi');
  });

  it('runs async functions and passes the context', async () => {
    const tool = await loadOne({
      name: 'slow_echo',
      path: fixture('plain-tools.mjs'),
      function: 'slowEcho',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    });
    await expect(tool.execute({ text: 'x' }, context)).resolves.toBe('agent_a/coordination: x');
  });

  it('lets errors thrown by the tool propagate', async () => {
    const tool = await loadOne({
      name: 'explode',
      path: fixture('plain-tools.mjs'),
      function: 'explode',
      parameters: { type: 'object' },
    });
    await expect(tool.execute({}, context)).rejects.toThrow('the tool exploded');
  });

  it('uses a zod schema exported as <function>Schema or <function>Parameters', async () => {
    const [add, multiply] = await loadCustomTools(
      [
        { name: 'add', path: fixture('zod-tools.mjs'), function: 'add' },
        { name: 'multiply', path: fixture('zod-tools.mjs'), function: 'multiply', destructive: false },
      ],
      { where },
    );
    expect(add).toMatchObject({ description: 'Adds two numbers.', parameters: { required: ['a', 'b'] } });
    expect(add?.parse({ a: 1, b: 'x' })).toMatchObject({ ok: false, message: expect.stringMatching(/^b: /) });
    expect(multiply?.parse({ a: 3 })).toEqual({ ok: true, value: { a: 3, b: 2 } });
    expect(multiply?.annotations).toEqual({ destructive: false });
  });

  it('uses defineTool exports, letting the config rename and redescribe them', async () => {
    const [lookup, remove] = await loadCustomTools(
      [
        { name: 'lookup', path: fixture('defined-tools.ts'), function: 'lookup' },
        {
          name: 'remove_file',
          description: 'Deletes a file.',
          path: fixture('defined-tools.ts'),
          function: 'wipe',
          parameters: { type: 'object', properties: { ignored: { type: 'string' } } },
        },
      ],
      { where },
    );
    expect(lookup).toMatchObject({ name: 'lookup', description: 'Looks up a word in a tiny dictionary.' });
    expect(lookup?.annotations).toEqual({ readOnly: true });
    expect(remove).toMatchObject({ name: 'remove_file', description: 'Deletes a file.' });
    // The module's own schema wins over the config's parameters.
    expect(remove?.parameters).toMatchObject({ required: ['file'] });
    expect(remove?.annotations).toEqual({ destructive: true });
    expect(isTool(remove)).toBe(true);
    await expect(remove?.execute({ file: 'a.txt' }, context)).resolves.toBe('deleted a.txt in coordination');
  });

  it('loads CommonJS modules', async () => {
    const tool = await loadOne({
      name: 'shout',
      path: fixture('commonjs-tools.cjs'),
      function: 'shout',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    });
    await expect(tool.execute({ text: 'hey' }, context)).resolves.toBe('HEY');
  });
});

describe('loadCustomTools: configuration errors', () => {
  let scratch = '';
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'massgen-custom-tools-'));
    await writeFile(join(scratch, 'broken.mjs'), 'export const a = ;\n');
    await writeFile(join(scratch, 'broken.ts'), 'export const a: number = ;\n');
    await writeFile(join(scratch, 'throws.mjs'), 'throw new Error("cannot start\\nmore detail");\n');
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  const entry = (overrides: Partial<CustomToolSettings>): CustomToolSettings => ({
    name: 'tool',
    path: fixture('plain-tools.mjs'),
    function: 'echo',
    parameters: { type: 'object' },
    ...overrides,
  });

  it('reports a missing file with its absolute path', async () => {
    const missing = join(scratch, 'nope.mjs');
    const error = await configError([entry({}), entry({ name: 'other', path: missing })]);
    expect(error.path).toBe(`${where}[1].path`);
    expect(error.message).toContain(`custom tool module not found: ${missing}`);
    expect(error.hint).toBeTruthy();
  });

  it('reports a directory and an unsupported extension', async () => {
    expect((await configError([entry({ path: fixtures })])).message).toContain(`not a file: ${fixtures}`);
    const error = await configError([entry({ path: fixture('unsupported.json') })]);
    expect(error.path).toBe(`${where}[0].path`);
    expect(error.message).toContain('unsupported custom tool module type ".json"');
    expect(error.hint).toContain('.ts');
  });

  it('includes the first line of a load failure', async () => {
    const js = await configError([entry({ path: join(scratch, 'broken.mjs') })]);
    // Under vitest, vite parses JavaScript modules; Node's own message is covered by the spawned test.
    expect(js.message).toMatch(/cannot load .*broken\.mjs: \w+Error: Unexpected token/);
    const ts = await configError([entry({ path: join(scratch, 'broken.ts') })]);
    expect(ts.message).toMatch(/broken\.ts:1:\d+: ERROR: Unexpected ";"$/);
    const thrown = await configError([entry({ path: join(scratch, 'throws.mjs') })]);
    expect(thrown.message).toMatch(/: cannot start$/);
    expect(thrown.path).toBe(`${where}[0].path`);
  });

  it('lists the exports and suggests the closest name for a missing export', async () => {
    const error = await configError([entry({ function: 'slowEhco' })]);
    expect(error.path).toBe(`${where}[0].function`);
    expect(error.message).toContain('has no export named "slowEhco" — did you mean "slowEcho"?');
    expect(error.message).toContain('echo, explode, explodeWithString');
  });

  it('rejects exports that are neither functions nor tools', async () => {
    const error = await configError([entry({ function: 'notAFunction' })]);
    expect(error.path).toBe(`${where}[0].function`);
    expect(error.message).toContain('is an object, not a function or a tool');
  });

  it('asks for parameters when a plain function has none', async () => {
    const error = await configError([entry({ parameters: undefined })]);
    expect(error.path).toBe(`${where}[0].parameters`);
    expect(error.hint).toContain('add parameters:');
    expect(error.hint).toContain('echoSchema');
  });

  it('rejects an invalid parameters schema and a non-object zod schema', async () => {
    const invalid = await configError([
      entry({ parameters: { type: 'object', properties: { a: { type: 1 } } } }),
    ]);
    expect(invalid.path).toBe(`${where}[0].parameters`);
    expect(invalid.message).toContain('invalid JSON Schema');
    const notObject = await configError([
      { name: 'not_object', path: fixture('zod-tools.mjs'), function: 'notObject' },
    ]);
    expect(notObject.message).toContain('"notObjectSchema"');
    expect(notObject.message).toContain('must be a zod object schema');
  });

  it('rejects duplicate names, naming the first entry', async () => {
    const error = await configError([entry({}), entry({ function: 'slowEcho' })]);
    expect(error.path).toBe(`${where}[1].name`);
    expect(error.message).toContain('duplicate custom tool name "tool"');
    expect(error.hint).toContain(`${where}[0]`);
  });

  it.each(['bad name', 'vote'])('rejects the tool name %j before loading anything', async (name) => {
    const error = await configError([entry({ name, path: join(scratch, 'never-loaded.mjs') })]);
    expect(error.path).toBe(`${where}[0].name`);
    expect(error.message).toMatch(/invalid tool name|reserved/);
  });
});
