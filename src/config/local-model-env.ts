import os from 'node:os';
import path from 'node:path';
import type { ConfigEnv } from './interpolate-env.js';

/** Where local models live and where `hf:` references are fetched from, as the environment says. */
export interface LocalModelEnv {
  /** `MASSGEN_MODEL_DIR`, else `$XDG_CACHE_HOME/massgen/models`, else `~/.cache/massgen/models`. */
  modelDir: string;
  /** `MASSGEN_HF_ENDPOINT`, else `HF_ENDPOINT` (the Hugging Face tools' variable), else the public hub. */
  hubEndpoint: string;
  /**
   * `HF_TOKEN` from the run's environment (its `.env` included): sent only to the hub, for gated or
   * private models. Read here, not from `process.env`, so a library caller's env is the only source.
   */
  hubToken?: string;
}

export function localModelEnv(env: ConfigEnv, home: string = os.homedir()): LocalModelEnv {
  const cacheHome = env['XDG_CACHE_HOME'] || path.join(home, '.cache');
  return {
    modelDir: env['MASSGEN_MODEL_DIR'] || path.join(cacheHome, 'massgen', 'models'),
    hubEndpoint: (env['MASSGEN_HF_ENDPOINT'] || env['HF_ENDPOINT'] || 'https://huggingface.co').replace(
      /\/+$/,
      '',
    ),
    ...(env['HF_TOKEN'] ? { hubToken: env['HF_TOKEN'] } : {}),
  };
}
