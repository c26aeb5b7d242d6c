import { existsSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { parseModelRef } from '../../backends/local/model-ref.js';
import {
  stageFile,
  userConfigDir,
  userConfigFile,
  userEnvFile,
  writeEnvFile,
} from '../../config/config-discovery.js';
import { ConfigValidationError, loadDotEnv } from '../../config/index.js';
import { closestMatch } from '../../util/closest-match.js';
import type { Env } from '../build-agents.js';
import { validateConfig } from '../validate.js';
import { createPrompter, PromptCancelledError, toWrite, type Output, type Prompter } from './prompter.js';
import {
  TEAM_PRESETS,
  buildTeamConfig,
  defaultModelFor,
  keyEnvSet,
  presetSummary,
  providerChoices,
  readPresetFile,
  teamProviders,
  type ProviderChoice,
  type TeamPreset,
} from './team.js';

/** What the wizard talks to. The CLI passes the real process streams; tests pass a `PassThrough`. */
export interface SetupWizardIo {
  /** Answers, one per line. Its end (Ctrl-D, a closed pipe) cancels the wizard. */
  stdin: NodeJS.ReadableStream;
  /** Questions and progress. */
  stdout: Output;
  /** Why an answer was refused (the question is then asked again). */
  stderr: Output;
  /**
   * The environment a run would see (e.g. `loadUserEnv(...)`): a provider whose key is set here, or
   * already saved in the user-level `.env`, is not asked for one.
   */
  env: Env;
  /** The home folder: the files go to `~/.config/massgen/` (or `$XDG_CONFIG_HOME/massgen/`). */
  home: string;
  /** stdin is a terminal: readline echoes keystrokes, and hides them while an API key is typed. */
  isTTY: boolean;
}

export interface SetupResult {
  /** The config written: `~/.config/massgen/config.yaml`. */
  configPath: string;
  /** The `.env` file keys were saved to, or null when no key was entered. */
  envPath: string | null;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const problem = <T>(text: string): Parsed<T> => ({ ok: false, problem: text });

/** Asks until `parse` accepts the answer; each refusal is explained on stderr. */
async function askUntil<T>(
  prompter: Prompter,
  err: (text: string) => void,
  question: string,
  parse: (answer: string) => Parsed<T>,
  options: { hidden?: boolean } = {},
): Promise<T> {
  for (;;) {
    const result = parse(await prompter.ask(question, options));
    if (result.ok) return result.value;
    err(`  ✖ ${result.problem}\n`);
  }
}

function parseYesNo(answer: string, fallback: boolean): Parsed<boolean> {
  const text = answer.toLowerCase();
  if (text === '') return ok(fallback);
  if (['y', 'yes'].includes(text)) return ok(true);
  if (['n', 'no'].includes(text)) return ok(false);
  return problem('please answer y (yes) or n (no)');
}

function parseProviders(
  answer: string,
  choices: readonly ProviderChoice[],
  fallback: string[],
): Parsed<ProviderChoice[]> {
  const words = answer === '' ? fallback : answer.split(/[\s,]+/).filter((word) => word !== '');
  if (words.length === 0)
    return problem('choose at least one provider, by number or name (e.g. 1,2 or openai,claude)');
  const picked: ProviderChoice[] = [];
  for (const word of words) {
    const byNumber = /^\d+$/.test(word) ? choices[Number(word) - 1] : undefined;
    const choice = byNumber ?? choices.find((c) => c.id === word.toLowerCase());
    if (!choice) {
      const guess = closestMatch(
        word,
        choices.map((c) => c.id),
      );
      return problem(
        `unknown provider "${word}"${guess ? ` — did you mean "${guess}"?` : ''} Choose 1–${choices.length} or: ${choices.map((c) => c.id).join(', ')}`,
      );
    }
    if (!picked.includes(choice)) picked.push(choice);
  }
  return ok(picked);
}

function parsePreset(answer: string, fallback: TeamPreset): Parsed<TeamPreset> {
  if (answer === '') return ok(fallback);
  const word = answer.toLowerCase().replace(/[\s_]+/g, '-');
  const byNumber = /^\d+$/.test(word) ? TEAM_PRESETS[Number(word) - 1] : undefined;
  const aliases: Record<string, TeamPreset['id']> = { 'q&a': 'qa', 'q-and-a': 'qa', local: 'local-only' };
  const id = aliases[word] ?? word;
  const preset = byNumber ?? TEAM_PRESETS.find((p) => p.id === id);
  if (preset) return ok(preset);
  const guess = closestMatch(
    word,
    TEAM_PRESETS.map((p) => p.id),
  );
  return problem(
    `unknown team "${answer}"${guess ? ` — did you mean "${guess}"?` : ''} Choose 1–${TEAM_PRESETS.length} or: ${TEAM_PRESETS.map((p) => p.id).join(', ')}`,
  );
}

/**
 * An API key as pasted: one token of printable characters. The value is never echoed back, not even
 * in a refusal.
 */
function parseKey(answer: string): Parsed<string> {
  if (answer === '') return problem('no key entered — paste the key, or press Ctrl-D to cancel');
  if (/\s/.test(answer)) return problem('an API key has no spaces — paste just the key');
  if (!/^[\x21-\x7e]+$/.test(answer))
    return problem('that key contains unexpected characters — paste it again');
  if (/['"`\\]/.test(answer)) return problem('an API key has no quotes or backslashes — paste just the key');
  if (answer.length < 8) return problem('that is too short for an API key — paste the whole key');
  return ok(answer);
}

function parseModel(
  answer: string,
  fallback: string,
  provider: ProviderChoice,
  home: string,
): Parsed<string> {
  const model = answer === '' ? fallback : answer;
  if (/\s/.test(model)) return problem('a model name has no spaces');
  if (provider.type !== 'local') return ok(model);
  if (model.startsWith('hf:') || /^https?:\/\//i.test(model)) {
    try {
      parseModelRef(model);
      return ok(model);
    } catch (error) {
      return problem(error instanceof Error ? error.message : String(error));
    }
  }
  const file = model === '~' ? home : model.startsWith('~/') ? path.join(home, model.slice(2)) : model;
  if (!path.isAbsolute(file)) {
    return problem(
      'give an absolute path to a .gguf file (the config is used from any folder) or hf:<user>/<repo>/<file>.gguf',
    );
  }
  if (!file.toLowerCase().endsWith('.gguf')) return problem(`"${file}" is not a .gguf file`);
  return ok(file);
}

const isSet = (env: Env, name: string) => (env[name] ?? '') !== '';

/**
 * `massgen --setup`: asks which providers to use, their API keys, a team preset and a model per
 * provider, then writes `~/.config/massgen/config.yaml` (validated first, written atomically) and the
 * keys to `~/.config/massgen/.env` (mode 600, merged with the lines already there).
 *
 * - Providers come from the backend registry (openai, claude, gemini, grok, the openrouter and groq
 *   presets of `chatcompletion`, local); their key variables are the registry's.
 * - A key already set in `io.env` or saved in the user `.env` is not asked for. Keys are read with
 *   echo off on a terminal and are never written to stdout or stderr.
 * - Presets are the bundled examples `presets/research`, `presets/coding`, `presets/qa` and
 *   `local/local_pair` (local only): the team takes their roles and settings, and each provider's
 *   model from the preset (Enter accepts it).
 * - An invalid answer is explained on stderr and asked again. The end of input (Ctrl-D) or Ctrl-C
 *   rejects with a `CancelledError` and writes nothing.
 *
 * @throws {CancelledError} when cancelled; {@link ConfigValidationError} if the team fails validation
 *   (nothing is written then either).
 */
export async function runSetupWizard(io: SetupWizardIo): Promise<SetupResult> {
  const out = toWrite(io.stdout);
  const err = toWrite(io.stderr);
  const prompter = createPrompter({ stdin: io.stdin, stdout: out, isTTY: io.isTTY });
  try {
    return await wizard(prompter, out, err, io);
  } finally {
    prompter.close();
  }
}

async function wizard(
  prompter: Prompter,
  out: (text: string) => void,
  err: (text: string) => void,
  io: SetupWizardIo,
): Promise<SetupResult> {
  const configPath = userConfigFile(io.env, io.home);
  const envPath = userEnvFile(io.env, io.home);
  // Keys saved by an earlier setup count as set, even when the caller passed the bare environment.
  const savedEnv = loadDotEnv(userConfigDir(io.env, io.home), {});
  const env: Env = {
    ...savedEnv,
    ...Object.fromEntries(Object.entries(io.env).filter(([, v]) => v !== undefined)),
  };

  out('massgen setup — choose the models of your team.\n');
  out(`The team goes to ${configPath}; API keys to ${envPath} (readable only by you).\n`);
  out('Press Enter to accept the [default]; Ctrl-D cancels without writing anything.\n\n');

  if (existsSync(configPath)) {
    const replace = await askUntil(prompter, err, `${configPath} already exists. Replace it? [y/N] `, (a) =>
      parseYesNo(a, false),
    );
    if (!replace) throw new PromptCancelledError(`setup cancelled: kept ${configPath}`);
  }

  // 1. Providers.
  const choices = providerChoices();
  out('Which providers should your agents use?\n');
  choices.forEach((choice, index) => {
    const set = keyEnvSet(choice, env);
    const key =
      choice.keyEnvs.length === 0 ? 'no key needed' : set ? `${set} is set` : `needs ${choice.keyEnvs[0]}`;
    out(`  ${String(index + 1).padStart(2)}. ${choice.id.padEnd(11)} ${choice.label} — ${key}\n`);
  });
  const withKeys = choices.filter((choice) => choice.keyEnvs.length > 0 && keyEnvSet(choice, env));
  const fallback = withKeys.map((choice) => choice.id);
  const providers = await askUntil(
    prompter,
    err,
    `Providers, by number or name, separated by commas${fallback.length > 0 ? ` [${fallback.join(',')}]` : ''}: `,
    (answer) => parseProviders(answer, choices, fallback),
  );

  // 2. Keys for the chosen providers that have none yet.
  const newKeys: Record<string, string> = {};
  for (const provider of providers) {
    if (provider.keyEnvs.length === 0) continue;
    const set = keyEnvSet(provider, env);
    if (set) {
      const where =
        isSet(savedEnv, set) && !isSet(io.env, set) ? `saved in ${envPath}` : 'set in your environment';
      out(`  ${set} is already ${where} — skipping ${provider.id}.\n`);
      continue;
    }
    const name = provider.keyEnvs[0]!;
    const hint = provider.keyUrl ? ` (get one at ${provider.keyUrl})` : '';
    out(`  ${provider.label} needs ${name}${hint}.\n`);
    newKeys[name] = await askUntil(
      prompter,
      err,
      `  Paste your ${provider.id} API key${io.isTTY ? ' (typing is hidden)' : ''}: `,
      parseKey,
      { hidden: true },
    );
    out(`  ✔ ${name} received.\n`);
  }

  // 3. The team preset.
  const onlyLocal = providers.every((provider) => provider.type === 'local');
  const defaultPreset =
    (onlyLocal ? TEAM_PRESETS.find((p) => p.localOnly) : TEAM_PRESETS[0]) ?? TEAM_PRESETS[0]!;
  out('\nWhich kind of team?\n');
  TEAM_PRESETS.forEach((preset, index) => {
    out(`  ${String(index + 1).padStart(2)}. ${preset.id.padEnd(11)} ${presetSummary(preset)}\n`);
  });
  const preset = await askUntil(prompter, err, `Team [${defaultPreset.id}]: `, (answer) =>
    parsePreset(answer, defaultPreset),
  );
  const file = readPresetFile(preset);
  const team = teamProviders(preset, providers);

  // 4. A model per provider.
  out('\nModels (Enter keeps the suggestion):\n');
  const models: Record<string, string> = {};
  for (const provider of team) {
    const suggestion = defaultModelFor(file, provider);
    models[provider.id] = await askUntil(
      prompter,
      err,
      `  Model for ${provider.id} [${suggestion}]: `,
      (answer) => parseModel(answer, suggestion, provider, io.home),
    );
  }

  // 5. Validate, then write: the config is staged, checked like `massgen --validate`, and only then
  // are the keys saved and the config renamed into place.
  const config = buildTeamConfig(file, team, models);
  const text = configText(preset, config);
  const staged = stageFile(configPath, text);
  try {
    const report = await validateConfig(staged.tmpPath, {
      cwd: path.dirname(configPath),
      env: { ...env, ...newKeys },
    });
    if (!report.valid) throw new ConfigValidationError(report.errors, { source: configPath });
    const savedKeys = Object.keys(newKeys);
    if (savedKeys.length > 0) writeEnvFile(envPath, newKeys);
    staged.commit();
    const agents = report.agents.map((a) => `${a.id} (${a.backend} · ${a.model})`).join(', ');
    out(`\n✔ Wrote ${configPath}: ${preset.label} team — ${agents}\n`);
    if (savedKeys.length > 0) {
      out(`✔ Saved ${savedKeys.join(', ')} to ${envPath} (mode 600: only you can read it)\n`);
    }
    out('Next: massgen "your question"\n');
    return { configPath, envPath: savedKeys.length > 0 ? envPath : null };
  } finally {
    staged.discard(); // no-op after a commit
  }
}

function configText(preset: TeamPreset, config: Record<string, unknown>): string {
  const header = [
    `# Written by \`massgen --setup\` (${preset.label} preset, from examples/${preset.example}.yaml).`,
    '# API keys are read from the environment, ./.env or ~/.config/massgen/.env — never put them here.',
    '# Edit freely; check with `massgen --validate <this file>`. A ./.massgen/config.yaml in a project wins.',
  ];
  return `${header.join('\n')}\n${stringify(config, { lineWidth: 0 })}`;
}

/**
 * The first-run question: download the default local model (yes, the default) or set up providers
 * (no). Resolves true for yes.
 *
 * @throws {CancelledError} when the input ends (Ctrl-D) or Ctrl-C is pressed.
 */
export async function askLocalModelDownload(io: Omit<SetupWizardIo, 'env' | 'home'>): Promise<boolean> {
  const out = toWrite(io.stdout);
  const prompter = createPrompter({ stdin: io.stdin, stdout: out, isTTY: io.isTTY });
  try {
    out('No config and no API key found.\n');
    out('massgen can run two agents on a small local model (Qwen2.5-1.5B, 1.1 GB, downloaded once),\n');
    out('or set up cloud providers (OpenAI, Claude, Gemini, …) now.\n');
    return await askUntil(prompter, toWrite(io.stderr), 'Download the local model? [Y/n] ', (answer) =>
      parseYesNo(answer, true),
    );
  } finally {
    prompter.close();
  }
}
