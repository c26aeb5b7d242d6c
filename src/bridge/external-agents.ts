import type { MassGenConfig } from '../config/index.js';
import { findBackendFactory } from '../backends/registry.js';
import { isAgentAdapter, PYTHON_FRAMEWORKS, TS_FRAMEWORKS } from '../backends/external/adapter-backend.js';
import { importToolModule } from '../tools/custom/index.js';
import type { AgentAdapter } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { closestMatch } from '../util/closest-match.js';

/** An agent from another framework, loaded: what its module exports (or its adapter), by agent position. */
export interface ExternalAgent {
  agent: unknown;
  module: string;
  export: string;
  framework?: string;
  /** Ends what an adapter started, at the end of the run. */
  close?: () => Promise<void>;
}

/** How an agent of `type: external` / `ag2` is driven, once its `framework:` is looked up. */
export type AgentRoute =
  | { kind: 'typescript'; framework: string }
  | { kind: 'python'; framework: string; adapter?: string }
  | { kind: 'ts-adapter'; framework: string; adapter: string };

const TS_MODULE = /\.(c|m)?[jt]sx?$/;

/** A Python module written by its import name (`pkg.mod`), not as a file: Python resolves it. */
export const isPythonImportName = (written: string): boolean =>
  /^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)*$/.test(written) && !written.endsWith('.py');

/** The frameworks `framework:` may name in this config, for errors. */
const knownFrameworks = (config: MassGenConfig) => [
  ...Object.keys(TS_FRAMEWORKS),
  ...PYTHON_FRAMEWORKS,
  ...Object.keys(config.adapters),
];

/** Where the agent at `index` goes, or undefined for the types that name their framework themselves. */
export function agentRoute(config: MassGenConfig, index: number): AgentRoute | undefined {
  const { backend } = config.agents[index]!;
  if (backend.type === 'ag2') {
    if ((backend.agent_config === undefined) === (backend.group_config === undefined)) {
      throw new ConfigError(
        `agents[${index}].backend: type: ag2 needs exactly one of agent_config (one AG2 agent) or group_config (an AG2 group chat)`,
        { path: `agents[${index}].backend.agent_config`, hint: "see MassGen's ag2/ example configs" },
      );
    }
    return { kind: 'python', framework: 'ag2' };
  }
  if (backend.type !== 'external') return undefined;
  const framework = backend.framework;
  const known = knownFrameworks(config);
  if (framework === undefined) {
    throw new ConfigError(`agents[${index}].backend: type: external needs framework:`, {
      path: `agents[${index}].backend.framework`,
      hint: `frameworks: ${known.join(', ')}`,
    });
  }
  const adapter = config.adapters[framework];
  if (adapter !== undefined) {
    return TS_MODULE.test(adapter)
      ? { kind: 'ts-adapter', framework, adapter }
      : { kind: 'python', framework, adapter };
  }
  if (framework in TS_FRAMEWORKS) return { kind: 'typescript', framework };
  if ((PYTHON_FRAMEWORKS as readonly string[]).includes(framework)) return { kind: 'python', framework };
  const suggestion = closestMatch(framework, known);
  throw new ConfigError(
    `agents[${index}].backend.framework: unknown framework "${framework}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`,
    {
      path: `agents[${index}].backend.framework`,
      hint: `frameworks: ${known.join(', ')} (or register your own under adapters:)`,
    },
  );
}

/** Imports `file` and returns its export `name`, or a config error listing the exports it has. */
async function exportOf(file: string, name: string, where: string, what: string): Promise<unknown> {
  const module = await importToolModule(file, where, what);
  if (module[name] !== undefined) return module[name];
  const names = Object.keys(module)
    .filter((n) => module[n] !== undefined)
    .sort();
  const suggestion = closestMatch(name, names);
  const at = where.replace(/\.module$/, '.export');
  throw new ConfigError(
    `${at}: ${file} has no export named "${name}"${suggestion ? ` — did you mean "${suggestion}"?` : ''} (its exports: ${names.join(', ') || 'none'})`,
    { path: at, hint: 'set export: to the name the agent is exported under' },
  );
}

/**
 * Imports the TypeScript side of agents from other frameworks now — the modules of `ai_sdk_agent`,
 * `openai_agents` and `langgraph` agents, and the adapters registered under `adapters:` — so a missing
 * module or export is a config error before any agent starts. Paths are relative to the config file
 * (then the working directory, as for custom tools). Python agents start later (`startPythonAgents`),
 * once their sandboxes exist.
 */
export async function loadExternalAgents(
  config: MassGenConfig,
  baseDir: string,
  project: { dir: string; notes: string[]; trusted?: boolean },
): Promise<Map<number, ExternalAgent>> {
  const loaded = new Map<number, ExternalAgent>();
  const resolve = (written: string, where: string) =>
    resolveConfigPath(written, where, {
      baseDir,
      projectDir: project.dir,
      notes: project.notes,
      projectTrusted: project.trusted,
    });
  for (const [index, agent] of config.agents.entries()) {
    const { backend } = agent;
    if (!findBackendFactory(backend.type)?.external) continue;
    const route = agentRoute(config, index);
    if (route?.kind === 'python') continue;
    const where = `agents[${index}].backend.module`;
    if (route?.kind === 'ts-adapter') {
      const file = resolve(route.adapter, `adapters.${route.framework}`);
      const create = await exportOf(file, 'createAgent', `adapters.${route.framework}`, 'adapter module');
      if (typeof create !== 'function') {
        throw new ConfigError(`adapters.${route.framework}: createAgent in ${file} is not a function`, {
          path: `adapters.${route.framework}`,
          hint: 'export function createAgent({ id, config, agent }) returning { stream(request) }',
        });
      }
      const target =
        backend.module === undefined
          ? undefined
          : await exportOf(
              resolve(backend.module, where),
              backend.export ?? 'default',
              where,
              'agent module',
            );
      const adapter = (await (create as (o: unknown) => unknown)({
        id: agent.id,
        config: { ...backend.provider_options },
        agent: target,
        baseDir,
      })) as AgentAdapter;
      if (!isAgentAdapter(adapter)) {
        throw new ConfigError(`adapters.${route.framework}: createAgent did not return { stream(request) }`, {
          path: `adapters.${route.framework}`,
        });
      }
      loaded.set(index, {
        agent: adapter,
        module: file,
        export: 'createAgent',
        framework: route.framework,
        ...(adapter.close ? { close: () => adapter.close!() } : {}),
      });
      continue;
    }
    if (backend.module === undefined) {
      throw new ConfigError(
        `agents[${index}].backend: the ${route?.framework ?? backend.type} agent needs module: (the file that exports it)`,
        { path: where, hint: 'e.g. module: ./agent.ts and export: agent' },
      );
    }
    const file = resolve(backend.module, where);
    const name = backend.export ?? 'default';
    const value = await exportOf(file, name, where, 'agent module');
    loaded.set(index, {
      agent: value,
      module: file,
      export: name,
      ...(route ? { framework: route.framework } : {}),
    });
  }
  return loaded;
}
