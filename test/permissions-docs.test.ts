/**
 * The permission docs say what the code does: the README's guarded.yaml and the configs in
 * docs/permissions.md validate as written, and the ledger line shown there has exactly the fields a
 * real ledger line has.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../src/app/validate.js';
import { ledgerEntry } from '../src/logging/permission-ledger.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const page = readFileSync(path.join(root, 'docs', 'permissions.md'), 'utf8');
const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', PATH: process.env.PATH };

async function validates(yaml: string, name: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'massgen-permissions-docs-'));
  try {
    writeFileSync(path.join(dir, name), yaml);
    return await validateConfig(name, { cwd: dir, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the permission docs', () => {
  it("the README's guarded.yaml validates", async () => {
    const yaml = /```yaml\n(# guarded\.yaml[\s\S]*?)```/.exec(readme)?.[1];
    expect(yaml, 'README has the guarded.yaml example').toBeDefined();
    const report = await validates(yaml as string, 'guarded.yaml');
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('the configs of docs/permissions.md validate', async () => {
    const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    const full = blocks.filter((b) => /^agents:/m.test(b));
    expect(full.length).toBeGreaterThanOrEqual(2);
    for (const yaml of full) expect((await validates(yaml, 'team.yaml')).errors).toEqual([]);
  });

  it('shows a ledger line with the fields the ledger writes', () => {
    const line = /^(\{"time":.*\})$/m.exec(page)?.[1];
    expect(line, 'docs/permissions.md shows a ledger line').toBeDefined();
    const real = ledgerEntry({
      type: 'tool.permission.decided',
      runId: 'r',
      seq: 1,
      ts: 0,
      agentId: 'a',
      phase: 'coordination',
      callId: 'c',
      toolName: 't',
      arguments: {},
      decision: 'deny',
      by: 'rule',
    });
    expect(Object.keys(JSON.parse(line as string))).toEqual(Object.keys(real));
  });
});
