import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configJsonSchema } from './json-schema.js';
import { MassGenConfigSchema } from './schema.js';
import { explainUnknownKey, nodeAt, schemaTree, type SchemaNode } from './schema-keys.js';

type Path = (string | number)[];

/** Every object in the tree, by a concrete path to it (index 0 for lists, key `x` for maps). */
function objectNodes(node: SchemaNode, at: Path = []): { path: Path; keys: string[] }[] {
  if (node.kind === 'array') return objectNodes(node.element, [...at, 0]);
  if (node.kind === 'record') return objectNodes(node.value, [...at, 'x']);
  if (node.kind !== 'object') return [];
  const here = { path: at, keys: [...node.fields.keys()] };
  return [here, ...[...node.fields].flatMap(([key, child]) => objectNodes(child, [...at, key]))];
}

/** A config that reaches `path` through lists and mappings and puts `leaf` there. */
function skeleton(path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [skeleton(rest, leaf)] : { [head as string]: skeleton(rest, leaf) };
}

/** zod's issues with the members of failed unions flattened in, each with its full path. */
function flatIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    const self = { ...issue, path } as z.core.$ZodIssue;
    return issue.code === 'invalid_union'
      ? [self, ...issue.errors.flatMap((member) => flatIssues(member, path))]
      : [self];
  });
}

/** Every property name declared anywhere in a JSON Schema document. */
function jsonSchemaKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) jsonSchemaKeys(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'properties' && typeof child === 'object' && child !== null)
        for (const name of Object.keys(child)) into.add(name);
      jsonSchemaKeys(child, into);
    }
  }
  return into;
}

describe('schemaTree', () => {
  const tree = schemaTree(MassGenConfigSchema);

  it('walks through pipes, optionals and defaults into every level', () => {
    const keysAt = (path: (string | number)[]) => {
      const node = nodeAt(tree, path);
      return node?.kind === 'object' ? [...node.fields.keys()] : undefined;
    };
    expect(keysAt([])).toEqual([
      'agents',
      'agent',
      'orchestrator',
      'timeout_settings',
      'ui',
      'pricing',
      'rate_limits',
      'attachments',
      'python',
      'adapters',
      'permissions',
      'hooks',
      'project_instructions',
      'skills',
      'memory',
      'tools',
    ]);
    expect(keysAt(['agents', 0])).toEqual([
      'id',
      'backend',
      'system_message',
      'subtask',
      'permissions',
      'skills',
      'hooks',
      'subagent_agents',
    ]);
    expect(keysAt(['agent', 'backend'])).toContain('provider_options');
    expect(keysAt(['orchestrator'])).toContain('max_steps_per_turn');
  });

  it('treats open bags as leaves', () => {
    expect(nodeAt(tree, ['agents', 0, 'backend', 'provider_options'])).toEqual({ kind: 'leaf' });
    expect(nodeAt(tree, ['agents', 0, 'backend', 'headers'])).toEqual({ kind: 'leaf' });
  });

  it('knows every key the JSON schema (--show-schema) declares, and no other', () => {
    const treeKeys = new Set(objectNodes(tree).flatMap(({ keys }) => keys));
    expect([...treeKeys].sort()).toEqual([...jsonSchemaKeys(configJsonSchema())].sort());
  });

  it("matches zod's own parsing at every object: its keys are accepted, any other key is unknown", () => {
    const objects = objectNodes(tree);
    // The levels a config has: top, agent(s), backend, mcp server, tools, orchestrator, pricing, …
    expect(objects.length).toBeGreaterThan(15);
    for (const { path, keys } of objects) {
      const value = Object.fromEntries([...keys, '__probe__'].map((key) => [key, null]));
      const result = MassGenConfigSchema.safeParse(skeleton(path, value));
      const unknown = flatIssues(result.error?.issues ?? []).filter(
        (issue) => issue.code === 'unrecognized_keys' && JSON.stringify(issue.path) === JSON.stringify(path),
      );
      expect(
        unknown.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : [])),
        `keys zod rejects at ${JSON.stringify(path)}`,
      ).toEqual(['__probe__']);
    }
  });

  it('follows $ref, so recursive and nullable schemas are walked too', () => {
    interface Node {
      name?: string;
      children?: Node[];
    }
    const node: z.ZodType<Node> = z.lazy(() =>
      z.strictObject({ name: z.string().optional(), children: z.array(node).optional() }),
    );
    const custom = schemaTree(z.object({ root: node, maybe: z.object({ inner: z.string() }).nullable() }));
    expect(nodeAt(custom, ['root', 'children', 0, 'children', 1])).toMatchObject({ kind: 'object' });
    expect(explainUnknownKey(custom, ['root', 'children', 0], 'nmae', {}).hint).toBe('did you mean "name"?');
    expect(explainUnknownKey(custom, ['maybe'], 'iner', {}).hint).toBe('did you mean "inner"?');
  });

  it('picks up keys from any zod schema, so new keys need no extra list', () => {
    const schema = z.object({ outer: z.object({ fresh_key: z.string().optional() }).default({}) });
    const custom = schemaTree(schema);
    expect(explainUnknownKey(custom, ['outer'], 'fresh_kye', {}).hint).toBe('did you mean "fresh_key"?');
    expect(explainUnknownKey(custom, [], 'fresh_key', {}).hint).toBe('it belongs under outer');
  });
});

describe('explainUnknownKey', () => {
  const tree = schemaTree(MassGenConfigSchema);

  it('prefers the location under the top-level key the config already uses', () => {
    expect(explainUnknownKey(tree, [], 'model', { agent: {} }).hint).toBe('it belongs under agent.backend');
    expect(explainUnknownKey(tree, [], 'model', { agents: [] }).hint).toBe(
      'it belongs under agents[].backend',
    );
  });

  it('keeps the index the user is at', () => {
    expect(explainUnknownKey(tree, ['agents', 2], 'api_key', {}).hint).toBe(
      'it belongs under agents[2].backend',
    );
  });

  it('suggests a near miss of a key that lives elsewhere', () => {
    expect(explainUnknownKey(tree, ['agents', 0], 'modle', {}).hint).toBe(
      'did you mean "model"? it belongs under agents[0].backend',
    );
  });

  it('lists the valid keys when nothing is close', () => {
    expect(explainUnknownKey(tree, ['timeout_settings'], 'zzz', {})).toEqual({
      message: 'unknown key "zzz" at timeout_settings',
      hint: 'valid keys here: orchestrator_timeout_seconds, agent_turn_timeout_seconds',
    });
  });
});
