import path from 'node:path';
import {
  DEFAULT_LOCAL_MODEL,
  anyApiKeySet,
  backendTypes,
  discoverConfig,
  inferBackend,
  isExampleRef,
  isLocalModelCached,
  localDefaultConfig,
  resolveExampleRef,
  shouldRunWizard,
  singleAgentConfig,
  type DiscoveredConfig,
  type Env,
  type MassGenConfig,
} from '../app/essentials.js';
import { UsageError, type CliIo } from './cli-io.js';
import type { CliOptions } from './program.js';

/**
 * The config a run's flags name: `--local-model`, `--config` (a file or `@examples/NAME`), quick mode
 * (`--model`, `--backend`), else the one discovered, else the zero-key local team.
 * @throws a `UsageError` for flags that do not go together, or for nothing configured while a key is set
 */
export function configFrom(
  options: CliOptions,
  io: CliIo,
  env: Env,
  discovered: DiscoveredConfig | null,
): MassGenConfig | string {
  if (options.localModel) {
    if (options.config || options.backend || options.model) {
      throw new UsageError('use --local-model on its own, without --config, --backend or --model');
    }
    const model = options.localModel.startsWith('hf:')
      ? options.localModel
      : path.resolve(io.cwd, options.localModel);
    return localDefaultConfig(model);
  }
  if (options.config) {
    if (options.backend || options.model || options.provider) {
      throw new UsageError('use either --config or --backend/--model/--provider, not both');
    }
    return isExampleRef(options.config) ? resolveExampleRef(options.config) : options.config;
  }
  if (options.backend || options.model) {
    if (!options.model)
      throw new UsageError('--backend needs --model', `e.g. --backend ${options.backend} --model <name>`);
    // Quick mode: `--model NAME` alone picks the backend from the model name.
    const inferred = options.backend ? undefined : inferBackend(options.model);
    const backendType = options.backend ?? inferred?.type;
    if (!backendType) {
      throw new UsageError(
        `cannot tell which backend serves "${options.model}": add --backend TYPE`,
        `backend types: ${backendTypes().join(', ')} (massgen --list-backends shows them with their key variables)`,
      );
    }
    const provider = options.provider ?? inferred?.provider;
    return singleAgentConfig({
      backendType,
      model: options.model,
      ...(provider ? { provider } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.systemMessage ? { systemMessage: options.systemMessage } : {}),
    });
  }
  // No flags: a project config (the folder is trusted: see gateProject) or the user's, first found wins.
  if (discovered) return discovered.path;
  // Nothing configured and no key anywhere: the zero-key start, two agents on a local model.
  if (!anyApiKeySet(env)) return localDefaultConfig(DEFAULT_LOCAL_MODEL);
  throw new UsageError(
    'no agents configured: pass --config FILE, --model NAME or --local-model PATH',
    'run `massgen --setup` to choose providers and a team once, or `massgen --help` for examples',
  );
}

/**
 * First run with nothing configured, on a terminal: the setup wizard, or first the question whether
 * to download the local model (see shouldRunWizard). Returns the config the wizard wrote, or
 * undefined to go on as usual.
 */
export async function firstRun(
  options: CliOptions,
  io: CliIo,
  env: Env,
  home: string,
): Promise<string | undefined> {
  if (!io.stdin) return undefined;
  const configFound =
    Boolean(options.config || options.model || options.backend || options.localModel) ||
    discoverConfig({ cwd: io.cwd, env: io.env, home }) !== null;
  const decision = shouldRunWizard({
    configFound,
    anyKeySet: anyApiKeySet(env),
    isTTY: io.stdinIsTTY === true && io.stdoutIsTTY === true,
    localModelCached: isLocalModelCached({ env, home }),
  });
  if (decision === 'none') return undefined;
  const wizardIo = { stdin: io.stdin, stdout: io.stdout, stderr: io.stderr, env, home, isTTY: true };
  const { askLocalModelDownload, runSetupWizard } = await import('../app/setup-wizard/wizard.js');
  if (decision === 'ask-local-model' && (await askLocalModelDownload(wizardIo))) return undefined;
  return (await runSetupWizard(wizardIo)).configPath;
}
