import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configJsonSchema } from './json-schema.js';

const examples = fileURLToPath(new URL('../../examples', import.meta.url));
const yamlFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? yamlFiles(file) : /\.ya?ml$/.test(name) ? [file] : [];
  });

describe('the config JSON Schema', () => {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(configJsonSchema());

  it.each(yamlFiles(examples).map((f) => [path.relative(examples, f), f]))(
    'accepts the bundled example %s',
    (_name, file) => {
      const ok = validate(parse(readFileSync(file, 'utf8')));
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    },
  );

  it('refuses a misspelt key, a wrong type and an unknown enum value, as an editor would show', () => {
    expect(validate({ agents: [{ backend: { type: 'openai', modle: 'gpt-4o' } }] })).toBe(false);
    expect(validate({ agents: [{ backend: { type: 'openai', model: 'x', temperature: 'hot' } }] })).toBe(
      false,
    );
    expect(
      validate({ agent: { backend: { type: 'openai', model: 'x' } }, orchestrator: { consensus: 'most' } }),
    ).toBe(false);
    expect(
      validate({
        agent: { backend: { type: 'openai', model: 'x' } },
        orchestrator: { consensus: 'majority' },
      }),
    ).toBe(true);
  });
});
