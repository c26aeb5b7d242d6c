import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { parseEnv } from 'node:util';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findBuiltInPrice } from '../../backends/index.js';
import { listBackends } from '../list-backends.js';
import { DEFAULT_LOCAL_MODEL } from '../../backends/local/default-model.js';
import { CancelledError } from '../../types/errors.js';
import { validateConfig } from '../validate.js';
import {
  askLocalModelDownload,
  isLocalModelCached,
  providerChoices,
  runSetupWizard,
  shouldRunWizard,
  TEAM_PRESETS,
  type SetupResult,
} from '../index.js';
import { readPresetFile } from './team.js';
import { WAIT_MS } from '../../../test/support/wait.js';

const OPENAI_KEY = 'sk-test-openai-0123456789';
const CLAUDE_KEY = 'sk-ant-test-claude-0123456789';
const GEMINI_KEY = 'AIza-test-gemini-0123456789';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'massgen-wizard-'));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const configDir = () => path.join(home, '.config', 'massgen');
const configFile = () => path.join(configDir(), 'config.yaml');
const envFile = () => path.join(configDir(), '.env');

interface Run {
  result: Promise<SetupResult>;
  stdin: PassThrough;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the wizard on a PassThrough stdin; `answers` (if given) are sent at once, then the input ends. */
function start(
  answers: string[] | undefined,
  options: { env?: Record<string, string>; isTTY?: boolean } = {},
): Run {
  const stdin = new PassThrough();
  let stdout = '';
  let stderr = '';
  const result = runSetupWizard({
    stdin,
    stdout: (text) => (stdout += text),
    stderr: { write: (text: string) => (stderr += text) },
    env: options.env ?? {},
    home,
    isTTY: options.isTTY ?? false,
  });
  if (answers) stdin.end(answers.map((a) => `${a}\n`).join(''));
  return {
    result,
    stdin,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
  };
}

async function finish(answers: string[], options: { env?: Record<string, string>; isTTY?: boolean } = {}) {
  const run = start(answers, options);
  const result = await run.result;
  return { result, stdout: run.stdout, stderr: run.stderr };
}

function readConfig(): {
  agents: { id: string; backend: Record<string, unknown>; system_message?: string }[];
} & Record<string, unknown> {
  return parse(readFileSync(configFile(), 'utf8')) as never;
}

async function validate(env: Record<string, string>) {
  return await validateConfig(configFile(), { cwd: configDir(), env });
}

describe('runSetupWizard', () => {
  it('builds a research team from openai + claude, saves the keys (mode 600) and never prints them', async () => {
    const { result, stdout, stderr } = await finish([
      'openai, claude',
      OPENAI_KEY,
      CLAUDE_KEY,
      'research',
      '', // default model for openai
      '', // default model for claude
    ]);
    expect(result).toEqual({ configPath: configFile(), envPath: envFile() });

    // The config validates with the saved keys and uses the chosen providers and the preset's models.
    const saved = parseEnv(readFileSync(envFile(), 'utf8'));
    expect(saved).toEqual({ OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: CLAUDE_KEY });
    const report = await validate(saved as Record<string, string>);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.agents).toEqual([
      { id: 'openai_researcher', backend: 'openai', model: 'gpt-5-mini' },
      { id: 'claude_skeptic', backend: 'claude', model: 'claude-sonnet-4-5' },
    ]);
    const config = readConfig();
    const preset = readPresetFile(TEAM_PRESETS[0]!);
    expect(config.agents[0]?.backend).toEqual(preset.agents[0]?.backend); // web search, reasoning kept
    expect(config.agents[0]?.system_message).toBe(preset.agents[0]?.system_message);
    expect(config.orchestrator).toEqual(preset.settings.orchestrator);
    expect(readFileSync(configFile(), 'utf8')).not.toContain('sk-');

    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    for (const text of [stdout, stderr]) {
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain(CLAUDE_KEY);
    }
    expect(stdout).toContain(`✔ Wrote ${configFile()}`);
    expect(stdout).toContain('massgen "your question"');
    expect(stderr).toBe('');
    expect(readdirSync(configDir()).sort()).toEqual(['.env', 'config.yaml']); // no temporary files
  });

  it('merges the .env on a second run without duplicating keys', async () => {
    await finish(['openai,claude', OPENAI_KEY, CLAUDE_KEY, '1', '', '']);
    writeFileSync(envFile(), `${readFileSync(envFile(), 'utf8')}# mine\nOTHER=1\n`);
    const second = await finish(['y', 'openai,claude,gemini', GEMINI_KEY, 'qa', '', '', '']);
    expect(second.stdout).toContain(`OPENAI_API_KEY is already saved in ${envFile()} — skipping openai.`);
    expect(second.stdout).toContain('ANTHROPIC_API_KEY is already saved');
    const text = readFileSync(envFile(), 'utf8');
    expect(text).toBe(
      `OPENAI_API_KEY=${OPENAI_KEY}\nANTHROPIC_API_KEY=${CLAUDE_KEY}\n# mine\nOTHER=1\nGOOGLE_API_KEY=${GEMINI_KEY}\n`,
    );
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    expect((await validate(parseEnv(text) as Record<string, string>)).agents.map((a) => a.model)).toEqual([
      'gpt-5-mini',
      'claude-haiku-4-5',
      'gemini-2.5-flash',
    ]);
    expect(second.stdout).not.toContain(GEMINI_KEY);
  });

  it('skips providers whose key is set in the environment, and offers them as the default', async () => {
    const env = { OPENAI_API_KEY: OPENAI_KEY };
    const { result, stdout } = await finish(['', 'coding', ''], { env });
    expect(stdout).toContain('openai      OpenAI (GPT-5) — OPENAI_API_KEY is set');
    expect(stdout).toContain('Providers, by number or name, separated by commas [openai]: ');
    expect(stdout).toContain('OPENAI_API_KEY is already set in your environment — skipping openai.');
    expect(stdout).not.toContain(OPENAI_KEY);
    expect(result.envPath).toBeNull();
    expect(existsSync(envFile())).toBe(false);
    // One provider: one agent per role of the preset, all on it.
    const report = await validate(env);
    expect(report.valid).toBe(true);
    expect(report.agents.map((a) => a.id)).toEqual(['openai_engineer', 'openai_reviewer', 'openai_tester']);
    expect(new Set(report.agents.map((a) => a.model))).toEqual(new Set(['gpt-5']));
  });

  it('re-asks after an invalid answer, with a clear message', async () => {
    const { stdout, stderr } = await finish([
      'openai, claud', // typo
      '', // nothing
      '9', // out of range
      'openai',
      'my key', // spaces
      'short',
      OPENAI_KEY,
      'reserch',
      'research',
      'gpt 5', // spaces in a model name
      'gpt-5',
    ]);
    expect(stderr).toContain('✖ unknown provider "claud" — did you mean "claude"?');
    expect(stderr).toContain('✖ choose at least one provider');
    expect(stderr).toContain('✖ unknown provider "9"');
    expect(stderr).toContain('✖ an API key has no spaces');
    expect(stderr).toContain('✖ that is too short for an API key');
    expect(stderr).toContain('✖ unknown team "reserch" — did you mean "research"?');
    expect(stderr).toContain('✖ a model name has no spaces');
    expect(stdout.match(/Providers, by number or name/g)).toHaveLength(4);
    for (const text of [stdout, stderr]) {
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain('my key');
    }
    // A model other than the preset's keeps only the portable settings.
    const config = readConfig();
    expect(config.agents.map((a) => a.backend)).toEqual([
      { type: 'openai', model: 'gpt-5' },
      { type: 'openai', model: 'gpt-5' },
      { type: 'openai', model: 'gpt-5' },
    ]);
    expect((await validate({ OPENAI_API_KEY: OPENAI_KEY })).valid).toBe(true);
  });

  it('Ctrl-D (end of input) aborts without writing anything', async () => {
    for (const answers of [
      [],
      ['openai,claude'],
      ['openai,claude', OPENAI_KEY, CLAUDE_KEY, 'research', ''],
    ]) {
      const run = start(answers);
      await expect(run.result).rejects.toBeInstanceOf(CancelledError);
      await expect(run.result).rejects.toThrow('setup cancelled: nothing was written');
      expect(existsSync(configDir())).toBe(false);
      expect(run.stdout).not.toContain(OPENAI_KEY);
    }
  });

  it('keeps an existing config unless told to replace it', async () => {
    mkdirSync(configDir(), { recursive: true });
    writeFileSync(configFile(), 'mine\n');
    const run = start(['']);
    await expect(run.result).rejects.toThrow(`setup cancelled: kept ${configFile()}`);
    expect(readFileSync(configFile(), 'utf8')).toBe('mine\n');
  });

  it('builds a local-only team: no key, the default model, an absolute path required', async () => {
    const { result, stdout, stderr } = await finish(['local', '', 'models/x.gguf', '~/models/mine.gguf']);
    expect(stdout).toContain('Team [local-only]: ');
    expect(stderr).toContain('give an absolute path');
    expect(result.envPath).toBeNull();
    const report = await validate({});
    expect(report.errors).toEqual([]);
    expect(report.agents).toEqual([
      { id: 'local_a', backend: 'local', model: path.join(home, 'models', 'mine.gguf') },
      { id: 'local_b', backend: 'local', model: path.join(home, 'models', 'mine.gguf') },
    ]);
    // The agents keep their own temperatures from the preset.
    expect(readConfig().agents.map((a) => a.backend.temperature)).toEqual([0.3, 0.8]);
  });

  it('mixes a cloud provider and the local model, with an hf: reference by default', async () => {
    await finish(['gemini,local', GEMINI_KEY, 'qa', '', '']);
    const report = await validate({ GOOGLE_API_KEY: GEMINI_KEY });
    expect(report.valid).toBe(true);
    expect(report.agents).toEqual([
      { id: 'gemini_answerer', backend: 'gemini', model: 'gemini-2.5-flash' },
      { id: 'local_checker', backend: 'local', model: DEFAULT_LOCAL_MODEL },
    ]);
  });

  it('writes under $XDG_CONFIG_HOME when it is set', async () => {
    const xdg = path.join(home, 'xdg');
    const run = start(['local', '', ''], { env: { XDG_CONFIG_HOME: xdg } });
    const result = await run.result;
    expect(result.configPath).toBe(path.join(xdg, 'massgen', 'config.yaml'));
    expect(existsSync(result.configPath)).toBe(true);
    expect(existsSync(configDir())).toBe(false);
  });

  it('uses openrouter and groq through chatcompletion presets', async () => {
    await finish(['openrouter,groq', 'sk-or-test-0123456789', 'gsk_test_0123456789', 'research', '', '']);
    const config = readConfig();
    expect(config.agents.map((a) => a.backend)).toEqual([
      { type: 'chatcompletion', provider: 'openrouter', model: 'openai/gpt-5-mini' },
      { type: 'chatcompletion', provider: 'groq', model: 'llama-3.3-70b-versatile' },
    ]);
    expect(readFileSync(envFile(), 'utf8')).toBe(
      'OPENROUTER_API_KEY=sk-or-test-0123456789\nGROQ_API_KEY=gsk_test_0123456789\n',
    );
  });

  it('on a terminal, echoes ordinary answers but not the pasted key; Ctrl-C cancels', async () => {
    // Type each answer once its question is on screen, as a person would.
    const typeAfter = async (run: Run, question: string, keys: string) => {
      await vi.waitFor(() => expect(run.stdout).toContain(question), { timeout: WAIT_MS, interval: 5 });
      run.stdin.write(keys);
    };
    const run = start(undefined, { isTTY: true });
    await typeAfter(run, 'separated by commas: ', 'openai\r');
    await typeAfter(run, '(typing is hidden): ', `${OPENAI_KEY}\r`);
    await typeAfter(run, 'Team [research]: ', 'research\r');
    await typeAfter(run, 'Model for openai [gpt-5-mini]: ', '\r');
    const result = await run.result;
    expect(result.envPath).toBe(envFile());
    expect(run.stdout).toMatch(/separated by commas: .*openai/); // echoed (after cursor moves)
    expect(run.stdout).toMatch(/Team \[research\]: .*research/);
    expect(run.stdout).not.toContain(OPENAI_KEY);
    expect(run.stdout).not.toContain(OPENAI_KEY.slice(0, 6));
    expect(parseEnv(readFileSync(envFile(), 'utf8')).OPENAI_API_KEY).toBe(OPENAI_KEY);

    rmSync(configDir(), { recursive: true });
    const interrupted = start(undefined, { isTTY: true });
    await typeAfter(interrupted, 'separated by commas: ', 'openai\r');
    await typeAfter(interrupted, '(typing is hidden): ', 'sk-partial');
    interrupted.stdin.write('\x03'); // Ctrl-C
    await expect(interrupted.result).rejects.toBeInstanceOf(CancelledError);
    expect(existsSync(configDir())).toBe(false);
    expect(interrupted.stdout).not.toContain('sk-partial');

    const eof = start(undefined, { isTTY: true });
    await typeAfter(eof, 'separated by commas: ', '\x04'); // Ctrl-D on an empty line
    await expect(eof.result).rejects.toThrow('setup cancelled: nothing was written');
    expect(existsSync(configDir())).toBe(false);
  });
});

describe('providers and presets', () => {
  it("offers the registry's key variables", async () => {
    const listing = await listBackends({});
    for (const choice of providerChoices()) {
      const backend = listing.find((b) => b.type === choice.type);
      expect(backend, choice.id).toBeDefined();
      const expected = choice.provider
        ? [backend?.presets.find((p) => p.name === choice.provider)?.keyEnv]
        : backend?.keyEnvs;
      expect(choice.keyEnvs, choice.id).toEqual(expected);
    }
    expect(providerChoices().map((c) => c.id)).toEqual([
      'openai',
      'claude',
      'gemini',
      'grok',
      'openrouter',
      'groq',
      'local',
    ]);
  });

  it("suggests priced models: every preset's and every hosted provider's default has a list price", () => {
    for (const preset of TEAM_PRESETS.filter((p) => !p.localOnly)) {
      for (const agent of readPresetFile(preset).agents) {
        expect(findBuiltInPrice(agent.backend.model), `${preset.id}: ${agent.backend.model}`).toBeDefined();
      }
    }
    for (const choice of providerChoices().filter((c) => !['groq', 'local'].includes(c.id))) {
      expect(findBuiltInPrice(choice.defaultModel), choice.id).toBeDefined();
    }
  });
});

describe('shouldRunWizard', () => {
  const base = { configFound: false, anyKeySet: false, isTTY: true, localModelCached: false };
  it.each([
    [{ configFound: true }, 'none'],
    [{ configFound: true, anyKeySet: true }, 'none'],
    [{ isTTY: false }, 'none'],
    [{ isTTY: false, anyKeySet: true }, 'none'],
    [{ anyKeySet: true }, 'wizard'],
    [{ anyKeySet: true, localModelCached: true }, 'wizard'],
    [{ localModelCached: true }, 'none'],
    [{}, 'ask-local-model'],
  ] as const)('%o → %s', (change, expected) => {
    expect(shouldRunWizard({ ...base, ...change })).toBe(expected);
  });
});

describe('askLocalModelDownload', () => {
  async function ask(input: string) {
    const stdin = new PassThrough();
    let stdout = '';
    let stderr = '';
    stdin.end(input);
    const answer = askLocalModelDownload({
      stdin,
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      isTTY: false,
    });
    return { answer: await answer, stdout, stderr };
  }

  it('defaults to yes, accepts no, and re-asks otherwise', async () => {
    expect((await ask('\n')).answer).toBe(true);
    expect((await ask('n\n')).answer).toBe(false);
    const retried = await ask('maybe\nyes\n');
    expect(retried.answer).toBe(true);
    expect(retried.stderr).toContain('please answer y (yes) or n (no)');
    expect(retried.stdout).toContain('Download the local model? [Y/n] ');
    await expect(ask('')).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('isLocalModelCached', () => {
  it('looks in the model cache a run would use', () => {
    const modelDir = path.join(home, 'models');
    const env = { MASSGEN_MODEL_DIR: modelDir };
    expect(isLocalModelCached({ env, home })).toBe(false);
    const cached = path.join(
      modelDir,
      'Qwen',
      'Qwen2.5-1.5B-Instruct-GGUF',
      'qwen2.5-1.5b-instruct-q4_k_m.gguf',
    );
    mkdirSync(path.dirname(cached), { recursive: true });
    writeFileSync(cached, 'GGUF');
    expect(isLocalModelCached({ env, home })).toBe(true);
    expect(isLocalModelCached({ env: {}, home })).toBe(false); // ~/.cache/massgen/models under this home
    expect(isLocalModelCached({ env, home, model: 'hf:bad' })).toBe(false);
  });
});
