import path from 'node:path';
import type { MassGenConfig } from '../config/index.js';
import { deepFreeze } from '../config/deep-freeze.js';

/** A folder or file a caller adds to a run beside the config's own `orchestrator.context_paths`. */
export interface ExtraContextPath {
  /** Absolute, or relative to the run's working directory. */
  path: string;
  /** `write`: the final presenter may write here (never during coordination). Default `read`. */
  permission?: 'read' | 'write';
}

/**
 * The config with `extra` appended to its context paths (made absolute against `cwd`, so they mean
 * the same whatever folder the config file is in). The same config when there are none.
 */
export function withExtraContextPaths(
  config: MassGenConfig,
  extra: readonly ExtraContextPath[] | undefined,
  cwd: string,
): MassGenConfig {
  if (!extra || extra.length === 0) return config;
  const added = extra.map((entry) => ({
    path: path.resolve(cwd, entry.path),
    permission: entry.permission ?? ('read' as const),
    protected_paths: [],
  }));
  return deepFreeze({
    ...config,
    orchestrator: { ...config.orchestrator, context_paths: [...config.orchestrator.context_paths, ...added] },
  });
}
