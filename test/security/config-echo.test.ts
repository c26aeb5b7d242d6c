/**
 * `massgen --validate` (and a run's config error) never prints what a file holds: a file that is not a
 * massgen config — a `.env`, a shadow or passwd file — or a config with a secret in the wrong place is
 * reported by file:line:col, key name and type, never by its lines or values. Through the built CLI,
 * in text and in --json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkdir, removeTempDirs, runCli } from '../e2e/cli-harness.js';

afterEach(() => removeTempDirs());

const MARK = 'Zq9secretMARK';

/** Every way massgen reads the file and reports on it: text, JSON, and a run that stops at it. */
async function everyReport(cwd: string, file: string): Promise<string> {
  const env = { OPENAI_API_KEY: 'sk-test-echo-0000' };
  const text = await runCli(['--validate', file], { cwd, env });
  const json = await runCli(['--validate', file, '--json'], { cwd, env });
  const run = await runCli(['--config', file, 'hello?'], { cwd, env });
  for (const result of [text, json, run]) expect(result.code, result.stderr).not.toBe(0);
  return [text, json, run].map((r) => `${r.stdout}\n${r.stderr}`).join('\n');
}

describe('diagnostics name the place, the key and the type, never the value', () => {
  it('a shadow file read as a config: its lines are not printed, the position is', async () => {
    const cwd = makeWorkdir();
    fs.writeFileSync(
      path.join(cwd, 'shadow'),
      `root:$6$${MARK}salt$${MARK}hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n`,
    );
    const out = await everyReport(cwd, 'shadow');
    expect(out).not.toContain(MARK);
    expect(out).not.toContain('root:');
    expect(out).toMatch(
      /shadow:1:1: unknown key at the top level \(not shown: it does not look like a config key/,
    );
  });

  it('a passwd file and a .env of KEY=value lines: the type only', async () => {
    const cwd = makeWorkdir();
    fs.writeFileSync(
      path.join(cwd, 'passwd'),
      `root:x:0:0:${MARK}:/root:/bin/bash\nbob:x:1000:1000::/home/bob:/bin/sh\n`,
    );
    fs.writeFileSync(path.join(cwd, '.env'), `OPENAI_API_KEY=sk-${MARK}\nDB_PASSWORD=${MARK}\n`);
    for (const file of ['passwd', '.env']) {
      const out = await everyReport(cwd, file);
      expect(out, file).not.toContain(MARK);
      expect(out, file).toContain('key at the top level, got a string: is this a massgen config file?');
    }
  });

  it('a YAML file of secrets: the key names and their line, not their values', async () => {
    const cwd = makeWorkdir();
    fs.writeFileSync(
      path.join(cwd, 'secrets.yaml'),
      `DB_USER: admin\nDB_PASSWORD: ${MARK}\nagents: sk-${MARK}\n`,
    );
    const out = await everyReport(cwd, 'secrets.yaml');
    expect(out).not.toContain(MARK);
    expect(out).toContain('secrets.yaml:2:1: unknown key "DB_PASSWORD" at the top level');
    expect(out).toContain('secrets.yaml:3:9: agents: expected a list, got a string');
  });

  it('a config with secrets in the wrong places: each problem by key and type', async () => {
    const cwd = makeWorkdir();
    fs.writeFileSync(
      path.join(cwd, 'team.yaml'),
      [
        'agents:',
        '  - id: alpha',
        '    backend:',
        '      type: chatcompletion',
        '      model: m',
        `      temperature: "sk-${MARK}"`,
        `      base_url: "${MARK} not a url"`,
        '      max_tokens: 31337.5',
        'ui:',
        `  display_type: ${MARK}`,
        'orchestrator:',
        `  on_new_answer: [${MARK}]`,
      ].join('\n'),
    );
    const out = await everyReport(cwd, 'team.yaml');
    expect(out).not.toContain(MARK);
    expect(out).not.toContain('31337');
    expect(out).toContain('team.yaml:6:20: agents[0].backend.temperature: expected a number, got a string');
    expect(out).toContain('agents[0].backend.base_url: expected an http:// or https:// URL, got a string');
    expect(out).toContain('ui.display_type: invalid value; allowed: rich_terminal, simple, silent');
    expect(out).toContain('orchestrator.on_new_answer: invalid value (a list); allowed: inject, restart');
  });
});
