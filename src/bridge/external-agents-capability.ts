import { existsSync } from 'node:fs';
import { findBackendFactory } from '../backends/registry.js';
import type { CapabilityParts, CapabilityProblems, ConfigPlace, RunContext } from '../capability/index.js';
import type { ConfigDiagnostic, MassGenConfig } from '../config/index.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { ConfigError } from '../types/errors.js';
import { commandExists } from '../util/find-executable.js';
import { agentRoute, isPythonImportName, loadExternalAgents, type AgentRoute } from './external-agents.js';
import { missingFramework, pythonMissing, type MissingFramework } from './python-checks.js';
import { startPythonAgents } from './python-agents.js';

/**
 * Loads the TypeScript agents and adapters, then starts the Python agents in their sandboxes; the
 * agents reach their backends by agent id, and everything started ends with the run.
 */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  const { config } = run;
  const loaded = await loadExternalAgents(config, run.baseDir, {
    dir: run.cwd,
    notes: run.notes,
    trusted: run.projectTrusted,
  });
  const adapters = [...loaded.values()].flatMap(({ close }) => (close ? [close] : []));
  const closeAdapters = () => Promise.all(adapters.map((close) => close().catch(() => {})));
  let python: Awaited<ReturnType<typeof startPythonAgents>>;
  try {
    python = await startPythonAgents(config, {
      baseDir: run.baseDir,
      cwd: run.cwd,
      projectTrusted: run.projectTrusted,
      env: run.env,
      sandboxes: run.sandboxes,
      notes: run.notes,
    });
  } catch (error) {
    await closeAdapters();
    throw error;
  }
  for (const [index, agent] of python.agents) loaded.set(index, agent);
  return {
    externals: new Map([...loaded].map(([index, agent]) => [config.agents[index]!.id, agent])),
    warnings: python.warnings,
    close: async () => {
      await Promise.all([python.close().catch(() => {}), closeAdapters()]);
    },
  };
}

/**
 * `--validate`: every agent's framework must be known and its module there (it is imported only when
 * a run starts); a Python agent's interpreter and framework package should be found (warnings: they
 * are facts of this machine).
 */
export function problems(config: MassGenConfig, place: ConfigPlace): CapabilityProblems {
  const errors: ConfigDiagnostic[] = [];
  const warnings: ConfigDiagnostic[] = [];
  const checked = new Map<string, MissingFramework | null>();
  config.agents.forEach((agent, index) => {
    const { module, type } = agent.backend;
    if (module === undefined || !findBackendFactory(type)?.external) return;
    // A Python agent may name a module (`pkg.mod`) rather than a file.
    if (['external', 'ag2'].includes(type) && isPythonImportName(module)) return;
    const where = `agents[${index}].backend.module`;
    const file = resolveConfigPath(module, where, place);
    if (!existsSync(file)) errors.push({ path: where, message: `${where}: agent module not found: ${file}` });
  });
  config.agents.forEach((_agent, index) => {
    let route: AgentRoute | undefined;
    try {
      route = agentRoute(config, index);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      errors.push({
        path: error.path ?? '',
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
      });
    }
    if (route?.kind !== 'python') return;
    const where = `agents[${index}].backend`;
    const python = config.python ?? 'python3';
    if (!commandExists(python, place.env.PATH, place.baseDir)) {
      warnings.push(
        pythonMissing(
          config,
          where,
          (name) => `the ${route.framework} agent runs in Python, and ${name} was not found`,
        ),
      );
    } else if (route.adapter === undefined) {
      const missing = missingFramework(
        python,
        route.framework,
        { env: place.env, cwd: place.baseDir },
        checked,
      );
      if (missing) {
        warnings.push({
          path: where,
          message: `${where}: the ${route.framework} agent needs the Python package ${missing.package}, which ${python} cannot import (no module named "${missing.module}")`,
          hint: `pip install '${missing.package}' (with the pip of ${python}), or set python: to an interpreter that has it`,
        });
      }
    }
  });
  return { errors, warnings };
}
