/**
 * Bad input to the built CLI (exit 1, one `massgen: error:` line, nothing written), `--validate`,
 * `--help` and `--version`. None of these reach a model, so no fake server is needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  linesOf,
  makeWorkdir,
  readJson,
  removeTempDirs,
  runCli,
  writeConfig,
  type CliResult,
} from './cli-harness.js';

afterEach(() => removeTempDirs());

/** Nothing listens here; these runs must fail before any connection is attempted. */
const LOCAL = 'http://127.0.0.1:9/v1';

const agentYaml = (id: string, backendLines: string[]): string =>
  [`  - id: ${id}`, '    backend:', ...backendLines.map((l) => `      ${l}`)].join('\n');

const goodAgent = (id: string): string =>
  agentYaml(id, ['type: chatcompletion', `model: model-${id}`, `base_url: ${LOCAL}`]);

/**
 * The common shape of a usage/config error: exit 1, nothing on stdout, stderr's first line is the only
 * `massgen: error:` line and names the problem, the rest are hints or the other problems of the file,
 * and no `.massgen` folder was created.
 */
function expectUsageError(result: CliResult, cwd: string, problem: RegExp): string[] {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  const lines = linesOf(result.stderr);
  expect(lines[0]).toMatch(/^massgen: error: \S/);
  expect(lines[0]).toMatch(problem);
  expect(lines.filter((l) => l.startsWith('massgen: error:'))).toHaveLength(1);
  for (const line of lines.slice(1)) expect(line).toMatch(/^(hint: |config\.yaml:\d+:\d+: )/);
  expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  return lines;
}

/** Writes `yaml` as config.yaml in a fresh workdir and runs `--config config.yaml <args>`. */
async function runWithConfig(
  yaml: string,
  args: string[] = ['What is 6 times 7?'],
): Promise<{ result: CliResult; cwd: string }> {
  const cwd = makeWorkdir();
  writeConfig(cwd, yaml);
  const result = await runCli(['--config', 'config.yaml', ...args], { cwd });
  return { result, cwd };
}

describe('bad input: exit 1 with one clear line', () => {
  it('a missing config file', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['--config', 'missing.yaml', 'Q?'], { cwd });
    expectUsageError(
      result,
      cwd,
      new RegExp(`^massgen: error: config file not found: ${path.join(cwd, 'missing.yaml')}$`),
    );
  });

  it('a YAML syntax error, with line and column', async () => {
    const { result, cwd } = await runWithConfig(
      ['agents:', '  - id: a', '    backend:', '      type: chatcompletion', '     model: m', ''].join('\n'),
    );
    expectUsageError(result, cwd, /^massgen: error: config\.yaml:5:1: YAML syntax error: .+/);
  });

  it('an unknown key suggests the right one', async () => {
    const { result, cwd } = await runWithConfig(
      `agents:\n${agentYaml('a', ['type: chatcompletion', 'modle: m', `base_url: ${LOCAL}`])}\n`,
    );
    const lines = expectUsageError(result, cwd, /unknown key "modle" at agents\[0\]\.backend/);
    expect(lines[0]).toBe(
      'massgen: error: config.yaml:5:7: unknown key "modle" at agents[0].backend — did you mean "model"?',
    );
  });

  it('a value of the wrong type', async () => {
    const { result, cwd } = await runWithConfig(
      `agents:\n${agentYaml('a', ['type: chatcompletion', 'model: m', `base_url: ${LOCAL}`, 'temperature: "hot"'])}\n`,
    );
    expectUsageError(
      result,
      cwd,
      /^massgen: error: config\.yaml:7:20: agents\[0\]\.backend\.temperature: expected a number, got a string$/,
    );
  });

  it('a config without agents', async () => {
    const { result, cwd } = await runWithConfig('timeout_settings:\n  agent_turn_timeout_seconds: 5\n');
    expectUsageError(
      result,
      cwd,
      /^massgen: error: config\.yaml: no agents: add an "agents:" list or a single "agent:"$/,
    );
  });

  it('duplicate agent ids', async () => {
    const { result, cwd } = await runWithConfig(`agents:\n${goodAgent('a')}\n${goodAgent('a')}\n`);
    expectUsageError(result, cwd, /agents\[1\]\.id: duplicate agent id "a" \(also used by agents\[0\]\)$/);
  });

  it('an unknown backend type suggests the right one', async () => {
    const { result, cwd } = await runWithConfig(
      `agents:\n${agentYaml('a', ['type: chatcompletio', 'model: m', `base_url: ${LOCAL}`])}\n`,
    );
    const lines = expectUsageError(
      result,
      cwd,
      /unknown backend type "chatcompletio" — did you mean "chatcompletion"\?$/,
    );
    expect(lines[0]).toContain('agents[0] (a)');
  });

  it('no question with --automation (without --automation, a config and no question opens interactive mode)', async () => {
    const { result, cwd } = await runWithConfig(`agents:\n${goodAgent('a')}\n`, ['--automation']);
    expectUsageError(result, cwd, /^massgen: error: no question given$/);
  });

  it('no arguments at all', async () => {
    const cwd = makeWorkdir();
    const result = await runCli([], { cwd });
    expectUsageError(result, cwd, /^massgen: error: no question and no agents given$/);
    expect(result.stderr).toContain('massgen --help');
  });

  it('--model with a name no backend can be guessed from', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['--model', 'm', 'Q?'], { cwd });
    expectUsageError(
      result,
      cwd,
      /^massgen: error: cannot tell which backend serves "m": add --backend TYPE$/,
    );
    expect(result.stderr).toContain('backend types: openai, claude, gemini, grok');
  });

  it('quick mode picks the backend from the model name, and names its key variable when unset', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['--model', 'claude-sonnet-4-5', 'Q?'], { cwd });
    expectUsageError(
      result,
      cwd,
      /^massgen: error: agents\[0\] \(agent_1\): the claude backend needs an API key — set the ANTHROPIC_API_KEY environment variable \(or backend\.api_key\)$/,
    );
    const glm = await runCli(['--model', 'glm-4.6', 'Q?'], { cwd });
    expect(glm.stderr).toContain('the chatcompletion backend (zai) needs an API key — set the ZAI_API_KEY');
  });

  it("an unknown flag (with commander's suggestion on the same line)", async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['--modle', 'm', 'Q?'], { cwd });
    expectUsageError(result, cwd, /^massgen: error: unknown option '--modle' \(Did you mean --model\?\)$/);
    expect(linesOf(result.stderr)).toHaveLength(1);
  });

  it('a missing API key for a remote base_url names OPENAI_API_KEY', async () => {
    const { result, cwd } = await runWithConfig(
      `agents:\n${agentYaml('a', ['type: chatcompletion', 'model: m', 'base_url: https://api.example.invalid/v1'])}\n`,
    );
    expectUsageError(
      result,
      cwd,
      /^massgen: error: agents\[0\] \(a\): the chatcompletion backend needs an API key — set the OPENAI_API_KEY environment variable/,
    );
  });
});

describe('--list-backends', () => {
  it('lists every backend type with its key variable and whether it is set, never the key', async () => {
    const cwd = makeWorkdir();
    const secret = 'sk-ant-test-SECRET-987654';
    const result = await runCli(['--list-backends'], { cwd, env: { ANTHROPIC_API_KEY: secret } });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(secret);
    const types = result.stdout
      .split('\n')
      .filter((l) => /^\S/.test(l) && !l.startsWith('sandbox for execute_command: '))
      .map((l) => l.split(/\s+/)[0]);
    expect(result.stdout).toMatch(
      /\nsandbox for execute_command: (✔ bubblewrap \(\/\S+\): .+|✖ none: .+ — .+)\n$/,
    );
    expect(types).toEqual([
      'openai',
      'claude',
      'gemini',
      'grok',
      'azure_openai',
      'chatcompletion',
      'vllm',
      'sglang',
      'inference',
      'lmstudio',
      'ollama',
      'local',
      'ai_sdk_agent',
      'openai_agents',
      'langgraph',
      'ag2',
      'external',
      'claude_code',
      'codex',
      'gemini_cli',
      'demo',
    ]);
    expect(result.stdout).toContain('key: ANTHROPIC_API_KEY ✔ set');
    expect(result.stdout).toContain('key: OPENAI_API_KEY ✖ not set');
    expect(result.stdout).toContain('key: GOOGLE_API_KEY or GEMINI_API_KEY ✖ not set');
    expect(result.stdout).toMatch(/groq\s+https:\/\/api\.groq\.com\/openai\/v1 {2}\(GROQ_API_KEY ✖\)/);

    const json = await runCli(['--list-backends', '--json'], { cwd, env: { GROQ_API_KEY: 'gsk-x' } });
    const parsed = JSON.parse(json.stdout) as {
      type: string;
      keySet: boolean;
      presets: { name: string; keySet: boolean }[];
    }[];
    expect(
      parsed.find((b) => b.type === 'chatcompletion')?.presets.find((p) => p.name === 'groq')?.keySet,
    ).toBe(true);
    expect(json.stdout).not.toContain('gsk-x');
  });
});

describe('--validate', () => {
  const badYaml = [
    'agents:',
    agentYaml('a', ['type: chatcompletion', 'modle: m']),
    goodAgent('b'),
    agentYaml('b', ['type: chatcompletion', 'model: m', 'temperature: hot']),
    '',
  ].join('\n');

  it('a good file: exit 0 and the agents', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, `agents:\n${goodAgent('a')}\n${goodAgent('b')}\n`);
    const result = await runCli(['--validate', 'config.yaml'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(linesOf(result.stdout)).toEqual([
      '✔ config.yaml is valid: 2 agent(s)',
      '  - a: chatcompletion / model-a',
      '  - b: chatcompletion / model-b',
    ]);
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  });

  it('a bad file: exit 1 listing every problem under the file named once, each led by its line:column', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, badYaml);
    const result = await runCli(['--validate', 'config.yaml'], { cwd });
    expect(result.code).toBe(1);
    const lines = linesOf(result.stdout);
    expect(lines.slice(0, 4)).toEqual([
      '✖ config.yaml has 3 problem(s):',
      '  5:7: unknown key "modle" at agents[0].backend — did you mean "model"?',
      '  11:9: agents[2].id: duplicate agent id "b" (also used by agents[1])',
      '  15:20: agents[2].backend.temperature: expected a number, got a string',
    ]);
    // The agents without base_url need a key this environment lacks: warnings, under one heading too.
    expect(lines[4]).toBe('warnings in config.yaml:');
    expect(lines.slice(5)).toEqual([
      expect.stringMatching(/^ {2}4:7: agents\[0\] \(a\): the chatcompletion backend needs an API key/),
      expect.stringMatching(/^ {2}13:7: agents\[2\] \(b\): the chatcompletion backend needs an API key/),
    ]);
    expect(result.stdout).not.toContain(cwd);
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  });

  it('--json: a machine-readable report with valid, errors, warnings and agents', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, badYaml, 'bad.yaml');
    writeConfig(
      cwd,
      `agents:\n${goodAgent('a')}\n${agentYaml('remote', ['type: chatcompletion', 'model: gpt-x', 'base_url: https://api.example.invalid/v1'])}\n`,
      'good.yaml',
    );

    const bad = await runCli(['--validate', 'bad.yaml', '--json'], { cwd });
    expect(bad.code).toBe(1);
    const badReport = JSON.parse(bad.stdout) as {
      valid: boolean;
      errors: { path: string; message: string; line?: number; column?: number }[];
      warnings: unknown[];
      agents: unknown[];
    };
    expect(badReport).toMatchObject({ valid: false, agents: [] });
    expect(badReport.warnings.map((w) => (w as { path: string }).path)).toEqual([
      'agents[0].backend.api_key',
      'agents[2].backend.api_key',
    ]);
    expect(badReport.errors.map((e) => e.path)).toEqual([
      'agents[0].backend.modle',
      'agents[2].id',
      'agents[2].backend.temperature',
    ]);
    expect(badReport.errors.every((e) => typeof e.line === 'number' && typeof e.column === 'number')).toBe(
      true,
    );

    const good = await runCli(['--validate', 'good.yaml', '--json'], { cwd });
    expect(good.code).toBe(0);
    const goodReport = JSON.parse(good.stdout) as {
      valid: boolean;
      file: string;
      errors: unknown[];
      warnings: { path: string; message: string }[];
      agents: unknown[];
    };
    expect(goodReport).toMatchObject({ valid: true, file: path.join(cwd, 'good.yaml'), errors: [] });
    expect(goodReport.agents).toEqual([
      { id: 'a', backend: 'chatcompletion', model: 'model-a' },
      { id: 'remote', backend: 'chatcompletion', model: 'gpt-x' },
    ]);
    // No key for the remote agent: valid, but it will not run here.
    expect(goodReport.warnings).toHaveLength(1);
    expect(goodReport.warnings[0]?.path).toBe('agents[1].backend.api_key');
    expect(goodReport.warnings[0]?.message).toContain('OPENAI_API_KEY');
  });

  it('a run with a broken --config names the same problems --validate does, and --validate --config reads that file', async () => {
    const cwd = makeWorkdir();
    // Five problems, one of which (the backend type) only the app knows: the run once named four.
    const broken = [
      'agents:',
      agentYaml('a', ['type: nosuchbackend', 'model: m']),
      agentYaml('b', [
        'type: chatcompletion',
        'model: m',
        'base_url: http://127.0.0.1:9/v1',
        'temperature: hot',
      ]),
      agentYaml('b', ['type: chatcompletion', 'model: m', 'base_url: http://127.0.0.1:9/v1']),
      'orchestrator:',
      '  max_new_answers_per_agent: -1',
      '  bogus_key: 1',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(cwd, 'broken.yaml'), broken);
    const validated = await runCli(['--validate', '--config', 'broken.yaml'], { cwd });
    expect(validated.code).toBe(1);
    const listed = linesOf(validated.stdout)
      .filter((line) => /^ {2}\d+:\d+: /.test(line))
      .slice(0, 5);
    expect(listed).toHaveLength(5);
    expect(validated.stdout).toContain('unknown backend type "nosuchbackend"');

    const run = await runCli(['--config', 'broken.yaml', 'a question'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(and 4 more problems)');
    for (const line of listed) expect(run.stderr).toContain(`broken.yaml:${line.trim()}`);
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
  });
});

describe('--help and --version', () => {
  it('--help exits 0 and lists the options', async () => {
    const cwd = makeWorkdir();
    const result = await runCli(['--help'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: massgen \[options\] \[question\.\.\.\]/);
    for (const option of [
      '-c, --config <file>',
      '--backend <type>',
      '--model <name>',
      '--base-url <url>',
      '--system-message <text>',
      '--no-display',
      '--automation',
      '--debug',
      '--no-logs',
      '--orchestrator-timeout <seconds>',
      '--validate [file]',
      '--json',
      '-V, --version',
      '-h, --help',
    ])
      expect(result.stdout).toContain(option);
    expect(result.stdout).toContain(
      'Exit codes: 0 success, 1 configuration or usage error, or the run could not start (no provider,',
    );
  });

  it('--version prints the package version', async () => {
    const cwd = makeWorkdir();
    const { version } = readJson<{ version: string }>(path.join(REPO_ROOT, 'package.json'));
    const result = await runCli(['--version'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${version}\n`);
  });
});
