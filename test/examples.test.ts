import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../src/app/validate.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const examples = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
const env = {
  OPENAI_API_KEY: 'sk-test',
  ANTHROPIC_API_KEY: 'sk-ant-test',
  GOOGLE_API_KEY: 'g-test',
  XAI_API_KEY: 'xai-test',
  AZURE_OPENAI_API_KEY: 'az-test',
  GROQ_API_KEY: 'gsk-test',
  OPENROUTER_API_KEY: 'or-test',
};

describe('bundled example configs', () => {
  it('exist', () => expect(examples.length).toBeGreaterThan(0));
  it.each(examples)('%s passes --validate', (file) => {
    const report = validateConfig(path.join(root, file), { cwd: root, env });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.valid).toBe(true);
  });
});
