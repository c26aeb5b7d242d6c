import type { MassGenConfig } from '../config/index.js';
import { findBackendFactory } from '../backends/index.js';
import { importToolModule } from '../tools/custom/index.js';
import { ConfigError } from '../types/errors.js';
import { resolveConfigPath } from './config-relative.js';
import { closestMatch } from '../util/closest-match.js';

/** An agent from another framework, loaded: what its module exports, by agent position. */
export interface ExternalAgent {
  agent: unknown;
  module: string;
  export: string;
}

/**
 * Imports the modules of agents from other frameworks (`type: ai_sdk_agent`, …) now, so a missing
 * module or export is a config error before any agent starts. Paths are relative to the config file
 * (then the working directory, as for custom tools).
 */
export async function loadExternalAgents(
  config: MassGenConfig,
  baseDir: string,
  project: { dir: string; notes: string[] },
): Promise<Map<number, ExternalAgent>> {
  const loaded = new Map<number, ExternalAgent>();
  for (const [index, agent] of config.agents.entries()) {
    const { backend } = agent;
    if (!findBackendFactory(backend.type)?.external || backend.module === undefined) continue;
    const where = `agents[${index}].backend.module`;
    const file = resolveConfigPath(backend.module, where, {
      baseDir,
      projectDir: project.dir,
      notes: project.notes,
    });
    const module = await importToolModule(file, where, 'agent module');
    const name = backend.export ?? 'default';
    if (module[name] === undefined) {
      const names = Object.keys(module)
        .filter((n) => module[n] !== undefined)
        .sort();
      const suggestion = closestMatch(name, names);
      throw new ConfigError(
        `agents[${index}].backend.export: ${file} has no export named "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : ''} (its exports: ${names.join(', ') || 'none'})`,
        {
          path: `agents[${index}].backend.export`,
          hint: 'set export: to the name the agent is exported under',
        },
      );
    }
    loaded.set(index, { agent: module[name], module: file, export: name });
  }
  return loaded;
}
