/**
 * Subcommands print text massgen did not write — memories (a model's words), skills (someone else's
 * files), a config's values — and none of it may drive the terminal (docs/security.md, "The terminal").
 * Through the built CLI, a memory and a skill carrying an OSC 52 clipboard write, a screen clear, a
 * window title, the 8-bit CSI and a bidi override print inert in every format, and the JSON formats
 * still parse back to exactly what was stored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../../src/memory/index.js';
import { agentEntry, makeWorkdir, removeTempDirs, runCli, writeConfig } from './cli-harness.js';

afterEach(() => removeTempDirs());

const HOSTILE =
  'zebra fact \x1b]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\x07\x1b[2J\x1b]0;PWNED\x07 \u009b31mred \u202eexe.txt';

/** Anything a terminal would act on: C0 controls but newline, DEL, C1, bidi controls. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTIVE = /[\0-\x09\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/;

/** Shown as the terminal-text module shows it. */
const SHOWN = '␛]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=␇␛[2J␛]0;PWNED␇';

async function plantMemory(cwd: string): Promise<void> {
  const store = await openMemoryStore(path.join(cwd, '.massgen', 'memory'), { embedder: null });
  await store.add([
    {
      text: HOSTILE,
      kind: 'fact',
      runId: 'run_\x1b[31mred',
      agentId: 'alpha\x07',
      scope: 'project',
      source: 'save_memory',
    },
  ]);
  await store.close();
}

describe('foreign text in subcommand output is inert', () => {
  it('massgen memory list, search and export, as text, Markdown and JSON', async () => {
    const cwd = makeWorkdir();
    await plantMemory(cwd);
    for (const args of [
      ['memory', 'list'],
      ['memory', 'search', 'zebra'],
      ['memory', 'export', '--format', 'markdown'],
    ]) {
      const result = await runCli(args, { cwd });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).not.toMatch(ACTIVE);
      expect(result.stdout, args.join(' ')).toContain(SHOWN);
      expect(result.stdout, args.join(' ')).toContain('\\u009B31mred');
    }
    type Stored = { text: string; agentId: string; runId: string };
    const json: [string[], (stdout: string) => Stored][] = [
      [['memory', 'list', '--json'], (out) => (JSON.parse(out) as Stored[])[0]!],
      [['memory', 'search', '--json', 'zebra'], (out) => (JSON.parse(out) as { hits: Stored[] }).hits[0]!],
      [['memory', 'export'], (out) => JSON.parse(out.split('\n')[0]!) as Stored],
    ];
    for (const [args, first] of json) {
      const result = await runCli(args, { cwd });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout, args.join(' ')).not.toMatch(ACTIVE);
      // Nothing is lost: the JSON still says exactly what was stored.
      expect(first(result.stdout), args.join(' ')).toMatchObject({
        text: HOSTILE,
        agentId: 'alpha\x07',
        runId: 'run_\x1b[31mred',
      });
    }
  });

  it('massgen skills list shows a skill’s description inert', async () => {
    const cwd = makeWorkdir();
    const skill = path.join(cwd, 'skills', 'evil');
    fs.mkdirSync(skill, { recursive: true });
    // YAML's double-quoted escapes: \e is ESC, \a is BEL.
    fs.writeFileSync(
      path.join(skill, 'SKILL.md'),
      '---\nname: evil\ndescription: "Formats reports. \\e]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\\a\\e[2J\\e]0;PWNED\\a Use for CSV."\n---\n\n# Evil\n',
    );
    const result = await runCli(['skills', 'list', '--dir', 'skills'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`evil  Formats reports. ${SHOWN} Use for CSV.`);
    expect(result.stdout + result.stderr).not.toMatch(ACTIVE);
  });

  it('massgen --validate --json spells a config’s 8-bit controls as \\u escapes, same data', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [agentEntry('a', 'http://127.0.0.1:9/v1', { backend: { model: 'gpt\u009b2J\u202e' } })],
    });
    const result = await runCli(['--validate', 'config.yaml', '--json'], { cwd });
    expect(result.stdout).not.toMatch(ACTIVE);
    const report = JSON.parse(result.stdout) as { agents: { model: string }[] };
    expect(report.agents[0]!.model).toBe('gpt\u009b2J\u202e');
  });
});
