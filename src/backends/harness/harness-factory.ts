import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { isLoopbackUrl } from '../is-loopback-url.js';
import type { Backend, BackendFactory, BackendSettings, HarnessSettings } from '../../types/backend.js';
import { createHarnessBackend, type HarnessAdapter } from './harness-backend.js';
import { ConfigError } from '../../types/errors.js';
import { NO_MEDIA_IN } from '../media-input.js';

/**
 * A coding-agent harness backend: `run` makes one harness turn from the settings, the workspace and the
 * loaded SDK. Shared here: capabilities, the key variable, the package check before the run starts (one
 * line naming the `npm install`), and the requirement of a workspace.
 */
export function defineHarness<Sdk>(options: {
  type: string;
  description: string;
  /** The npm package of the harness's SDK. */
  package: string;
  defaultModel: string;
  keyEnv: string;
  defaultBaseUrl: string;
  run: (settings: BackendSettings, harness: HarnessSettings, sdk: Promise<Sdk>) => HarnessAdapter['run'];
  /** How the package is loaded (default: imported); throws when it is not installed. */
  load?: () => Promise<Sdk>;
}): BackendFactory {
  const load = () =>
    options.load
      ? options.load().catch((error: unknown) => {
          throw missingPackage(options.package, error);
        })
      : loadHarnessPackage<Sdk>(options.package);
  return {
    type: options.type,
    description: options.description,
    defaultModel: options.defaultModel,
    capabilities: {
      streaming: true,
      tools: true,
      webSearch: false,
      codeExecution: false,
      reasoning: true,
      imagesIn: false,
    },
    apiKeyEnvs: () => [options.keyEnv],
    defaultBaseUrl: () => options.defaultBaseUrl,
    keyOptional: (settings) => isLoopbackUrl(settings.baseUrl),
    harness: true,
    // The harness reads the files in its workspace itself; massgen sends it text only.
    mediaIn: NO_MEDIA_IN,
    prepare: async () => {
      await load();
    },
    create(settings): Backend {
      const harness = settings.harness;
      if (!harness)
        throw new ConfigError(`${options.type} needs cwd: (its workspace)`, {
          hint: `e.g. cwd: ${options.type}_workspace`,
        });
      const sdk = load();
      sdk.catch(() => {}); // Checked by prepare; a failure here is the first step's.
      return createHarnessBackend({
        type: options.type,
        model: settings.model,
        run: options.run(settings, harness, sdk),
      });
    },
  };
}

/**
 * The harness process's environment: PATH and locale from the run, a home of its own inside the
 * workspace (so `~/.claude`, `~/.codex` and the user's other dotfiles stay out of reach), a private
 * TMPDIR, and what the harness needs (its key, its base URL). Nothing else of the run's environment —
 * other keys included — reaches it.
 */
export function harnessEnv(
  harness: HarnessSettings,
  home: string,
  extra: Record<string, string | undefined>,
): Record<string, string> {
  mkdirSync(path.join(home, '.tmp'), { recursive: true });
  const env: Record<string, string | undefined> = {
    PATH: harness.env.PATH,
    LANG: harness.env.LANG,
    TERM: 'dumb',
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_CACHE_HOME: `${home}/.cache`,
    // A private temp folder too (Codex will not put its sandbox helpers under a shared one).
    TMPDIR: path.join(home, '.tmp'),
    // The workspace sits inside the user's project: git must not find the project's repository above it.
    GIT_CEILING_DIRECTORIES: path.dirname(harness.workspace),
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

const missingPackage = (pkg: string, error: unknown) =>
  new ConfigError(`${pkg} is not installed (${(error as Error).message.split('\n')[0]})`, {
    hint: `npm install ${pkg} (next to massgen)`,
  });

/** Imports a harness package (massgen's own optional dependency), or says what to install. */
export async function loadHarnessPackage<T>(pkg: string): Promise<T> {
  try {
    return (await import(pkg)) as T;
  } catch (error) {
    throw missingPackage(pkg, error);
  }
}
