import { existsSync } from 'node:fs';
import os from 'node:os';
import { DEFAULT_LOCAL_MODEL } from '../../backends/local/default-model.js';
import { cachePath, parseModelRef } from '../../backends/local/model-ref.js';
import { localModelEnv } from '../../config/index.js';
import { ConfigError } from '../../types/errors.js';
import type { Env } from '../build-agents.js';

// The first-run decision every CLI run makes; the wizard it may lead to (wizard.ts) loads only then.

/** What the CLI does when it starts with nothing configured. See {@link shouldRunWizard}. */
export type WizardDecision = 'wizard' | 'ask-local-model' | 'none';

/**
 * Decides whether a run that found no configuration should start the setup wizard.
 *
 * The rule, in order:
 * 1. `configFound` (`--config`, `--model`, `--backend`, `--local-model`, or a file from
 *    `discoverConfig`) → `'none'`: the user has configured something; never prompt.
 * 2. Not interactive (`isTTY` false: stdin or stdout is not a terminal — scripts, CI, pipes) →
 *    `'none'`: never prompt. The CLI goes on as before: the zero-key local default without keys, or
 *    the "no agents configured" error (with a `massgen --setup` hint) when keys are set.
 * 3. `anyKeySet` → `'wizard'`: API keys are present, so the user evidently wants providers; build the
 *    team with them instead of failing.
 * 4. `localModelCached` → `'none'`: the zero-key local team runs at once, offline; nothing to ask.
 * 5. Otherwise → `'ask-local-model'`: ask "download the local model?" (`askLocalModelDownload`, wizard.ts);
 *    yes runs the zero-key local team, no starts the wizard.
 */
export function shouldRunWizard(state: {
  configFound: boolean;
  anyKeySet: boolean;
  isTTY: boolean;
  localModelCached: boolean;
}): WizardDecision {
  if (state.configFound || !state.isTTY) return 'none';
  if (state.anyKeySet) return 'wizard';
  return state.localModelCached ? 'none' : 'ask-local-model';
}

/**
 * Whether the default local model (or `model`) is already on disk, so a zero-key run needs no
 * download. Uses the same cache folder as a run (`MASSGEN_MODEL_DIR`, `XDG_CACHE_HOME`, `~/.cache`).
 */
export function isLocalModelCached(options: { env: Env; home?: string; model?: string }): boolean {
  try {
    const { modelDir } = localModelEnv(options.env, options.home ?? os.homedir());
    const ref = parseModelRef(options.model ?? DEFAULT_LOCAL_MODEL);
    return existsSync(ref.kind === 'path' ? ref.path : cachePath(ref, modelDir));
  } catch (error) {
    if (error instanceof ConfigError) return false;
    throw error;
  }
}
