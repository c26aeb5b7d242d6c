import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MassGenConfig } from '../config/index.js';
import { isWithin } from '../tools/permissions/check-path.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { ConfigError } from '../types/errors.js';
import {
  RunWorkspaces,
  type ContextPathInfo,
  type IsolationSpec,
  type Reviewer,
} from '../workspace/index.js';

/**
 * Checks `backend.cwd` of every agent without touching the disk: a plain folder name (or relative
 * path) inside `.massgen/workspaces/`, one per agent, none inside another.
 */
export function workspaceProblems(config: MassGenConfig): ConfigError[] {
  const problems: ConfigError[] = [];
  const seen: { index: number; id: string; cwd: string }[] = [];
  config.agents.forEach((agent, index) => {
    const { cwd } = agent.backend;
    const where = `agents[${index}].backend.cwd`;
    if (cwd === undefined) return;
    const normalised = path.normalize(cwd);
    if (path.isAbsolute(cwd) || normalised === '.' || normalised.startsWith('..')) {
      problems.push(
        new ConfigError(
          `${where}: "${cwd}" is outside the project — a workspace lives in .massgen/workspaces/`,
          {
            path: where,
            hint: 'use a plain name such as cwd: workspace1',
          },
        ),
      );
      return;
    }
    for (const other of seen) {
      if (isWithin(normalised, other.cwd) || isWithin(other.cwd, normalised)) {
        problems.push(
          new ConfigError(
            `${where}: the workspace "${cwd}" of ${agent.id} overlaps the workspace "${other.cwd}" of ${other.id}`,
            { path: where, hint: 'give every agent its own workspace name' },
          ),
        );
      }
    }
    seen.push({ index, id: agent.id, cwd: normalised });
    if (agent.backend.execution_mode === 'docker' && agent.backend.enable_code_execution !== true) {
      problems.push(
        new ConfigError(`agents[${index}].backend.execution_mode: docker applies to execute_command`, {
          path: `agents[${index}].backend.execution_mode`,
          hint: 'add enable_code_execution: true, or remove execution_mode',
        }),
      );
    }
  });
  config.agents.forEach((agent, index) => {
    if (agent.backend.cwd === undefined && agent.backend.execution_mode === 'docker') {
      problems.push(
        new ConfigError(`agents[${index}].backend.execution_mode: docker needs a workspace (backend.cwd)`, {
          path: `agents[${index}].backend.execution_mode`,
          hint: 'execute_command runs in the agent workspace; add cwd: <name>',
        }),
      );
    }
  });
  return problems;
}

/**
 * Resolves `orchestrator.context_paths` (relative to `baseDir`, the config file's folder): each must be
 * an existing folder or file (a file context path gives access to that file alone); protected paths
 * resolve against their context path and must lie inside it. MassGen resolves context paths from the
 * working directory instead: a relative path missing beside the config but present under
 * `options.projectDir` is taken from there, with a note.
 */
export function resolveContextPaths(
  config: MassGenConfig,
  baseDir: string,
  options: { projectDir?: string; notes?: string[] } = {},
): ContextPathInfo[] {
  return config.orchestrator.context_paths.map((entry, index) => {
    const where = `orchestrator.context_paths[${index}].path`;
    const absolute = resolveConfigPath(entry.path, where, { baseDir, ...options });
    if (!existsSync(absolute)) {
      throw new ConfigError(`${where}: context path not found: ${absolute}`, {
        path: where,
        hint: 'context paths are relative to the config file; create the folder or fix the path',
      });
    }
    const real = realpathSync(absolute);
    const protectedPaths = entry.protected_paths.map((p, j) => {
      const resolved = path.resolve(absolute, p);
      const target = existsSync(resolved)
        ? realpathSync(resolved)
        : path.join(real, path.relative(absolute, resolved));
      if (!isWithin(target, real)) {
        throw new ConfigError(
          `orchestrator.context_paths[${index}].protected_paths[${j}]: "${p}" is not inside ${absolute}`,
          { path: `orchestrator.context_paths[${index}].protected_paths[${j}]` },
        );
      }
      return target;
    });
    if (entry.write_mode !== undefined && entry.write_mode !== 'direct' && entry.permission !== 'write') {
      throw new ConfigError(
        `orchestrator.context_paths[${index}].write_mode: ${entry.write_mode} applies to a context path agents may write`,
        {
          path: `orchestrator.context_paths[${index}].write_mode`,
          hint: 'add permission: write, or remove write_mode',
        },
      );
    }
    const isolated = entry.write_mode === 'worktree' || entry.write_mode === 'isolated';
    if (isolated && !statSync(real).isDirectory()) {
      throw new ConfigError(
        `orchestrator.context_paths[${index}].write_mode: ${entry.write_mode} needs a folder, and ${absolute} is a file`,
        {
          path: `orchestrator.context_paths[${index}].write_mode`,
          hint: 'give the folder that holds the file',
        },
      );
    }
    return {
      path: real,
      permission: entry.permission,
      protectedPaths,
      ...(entry.write_mode === undefined ? {} : { writeMode: entry.write_mode }),
    };
  });
}

/**
 * Throws the first problem with `cwd`s and context paths, without creating anything; returns the
 * resolved context paths.
 */
export function checkWorkspaceConfig(
  config: MassGenConfig,
  baseDir: string,
  options: { projectDir?: string; notes?: string[] } = {},
): ContextPathInfo[] {
  const [problem] = workspaceProblems(config);
  if (problem) throw problem;
  return resolveContextPaths(config, baseDir, options);
}

/**
 * Creates the run's workspaces (the config was checked by {@link checkWorkspaceConfig}). Null when
 * no agent has a `cwd` (context paths alone give no tools to read them with).
 */
export async function prepareWorkspaces(
  config: MassGenConfig,
  options: {
    projectDir: string;
    contextPaths: readonly ContextPathInfo[];
    previousWorkspace?: string | null;
    /** How the winner's changes to isolated context paths are reviewed; `keep`: `--keep-worktrees`. */
    isolation?: { reviewer: Reviewer; keep?: boolean };
  },
): Promise<RunWorkspaces | null> {
  if (!config.agents.some((a) => a.backend.cwd !== undefined)) return null;
  return RunWorkspaces.create({
    massgenDir: path.join(options.projectDir, '.massgen'),
    agents: config.agents.map((agent, index) => ({
      agentId: agent.id,
      anonymousId: `agent${index + 1}`,
      cwd: agent.backend.cwd === undefined ? null : path.normalize(agent.backend.cwd),
    })),
    contextPaths: options.contextPaths,
    previousWorkspace: options.previousWorkspace ?? null,
    isolation: options.isolation
      ? { ...options.isolation, specs: isolationSpecs(options.contextPaths) }
      : null,
  });
}

/** The context paths whose `write_mode` gives every agent its own copy. */
export function isolationSpecs(contextPaths: readonly ContextPathInfo[]): IsolationSpec[] {
  return contextPaths.flatMap((c) =>
    c.permission === 'write' && (c.writeMode === 'worktree' || c.writeMode === 'isolated')
      ? [{ path: c.path, mode: c.writeMode, protectedPaths: c.protectedPaths }]
      : [],
  );
}
