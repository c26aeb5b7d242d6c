import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { mcpServerType, type AgentConfig, type MassGenConfig } from '../config/index.js';
import { formatByteSize } from '../config/byte-size.js';
import {
  dockerAvailable,
  homeLayout,
  processBound,
  sandboxSupport,
  type ExecutionMode,
  type SandboxLayout,
} from '../tools/execute-command/index.js';
import { createPathChecker } from '../tools/permissions/check-path.js';
import type { PathDenial } from '../tools/permissions/path-policy.js';
import type { ToolContext } from '../types/tool.js';
import { ConfigError, describeError } from '../types/errors.js';
import type { RunWarning } from '../types/events.js';
import { gitAvailable, type ContextPathInfo, type Reviewer, type RunWorkspaces } from '../workspace/index.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import { isolationSpecs, prepareWorkspaces } from './build-workspaces.js';
import type { Env } from './build-agents.js';
import { hasPermissionRules } from './holds-tool-calls.js';

/** No review asked: the winner's changes are applied as the presenter's writes would be. */
const APPLY_ALL: Reviewer = {
  awaitsReview: false,
  review: async () => ({ files: 'all', by: 'default' }),
};

/** Where an agent's commands run, once the config and this machine have been asked. */
export type CommandPlan = { mode: ExecutionMode } | { mode: null; warning: RunWarning };

/**
 * `execution_mode` against this machine: `sandbox` (or unset) needs bubblewrap that works; unset
 * without one drops `execute_command` with a warning, explicit `sandbox` is a config error naming what
 * to install; `local` runs unconfined, loudly.
 */
export function planCommands(agent: AgentConfig, index: number, env: Env): CommandPlan {
  const mode = agent.backend.execution_mode ?? 'sandbox';
  const key = `agents[${index}].backend.execution_mode`;
  if (mode !== 'sandbox') return { mode };
  const support = sandboxSupport(env.PATH);
  if (support.ok) return { mode };
  if (agent.backend.execution_mode === 'sandbox') {
    throw new ConfigError(`${key}: sandbox, but ${support.reason}`, { path: key, hint: support.hint });
  }
  return {
    mode: null,
    warning: {
      code: 'no_sandbox',
      key,
      message: `${agent.id} has no execute_command: ${support.reason}. To enable it, ${support.hint}.`,
    },
  };
}

/**
 * `execution_mode: docker` on a machine without a Docker engine (MassGen's configs ask for it
 * often): null when Docker answers; otherwise, with `docker.fallback: sandbox` (the default) and a
 * working OS sandbox, the warning that says the commands run there instead and what differs; else a
 * config error naming the key.
 */
export async function dockerFallback(
  agent: AgentConfig,
  index: number,
  env: Env,
): Promise<RunWarning | null> {
  const available = await dockerAvailable(env);
  if (available.ok) return null;
  const { docker } = agent.backend;
  const where = `agents[${index}].backend`;
  if (docker.fallback === 'error') {
    throw new ConfigError(
      `${where}.docker.fallback: error, and no Docker engine is available here (${available.reason})`,
      {
        path: `${where}.docker.fallback`,
        hint: 'start Docker, or set docker.fallback: sandbox to run the commands in the OS sandbox',
      },
    );
  }
  const support = sandboxSupport(env.PATH);
  if (!support.ok) {
    throw new ConfigError(
      `${where}.execution_mode: docker, but no Docker engine is available here (${available.reason}) and the OS sandbox it falls back to is not either (${support.reason})`,
      { path: `${where}.execution_mode`, hint: `start Docker, or ${support.hint}` },
    );
  }
  return {
    code: 'docker_fallback',
    key: `${where}.execution_mode`,
    message: `${agent.id}: execution_mode is docker, but no Docker engine is available here (${available.reason}); its commands run in the OS sandbox instead — with this machine's programs rather than the ${docker.image} image, the workspace at its own path rather than /workspace, network ${docker.network ? 'on' : 'off'} as configured, the memory limit of sandbox.memory (${formatByteSize(agent.backend.sandbox.memory)}) rather than docker.memory, and no CPU limit (docker.fallback: error stops the run instead).`,
  };
}

/** The sandbox `execute_command` gets on this machine, for `--validate` and `--list-backends`. */
export function describeSandbox(env: Env): string {
  const support = sandboxSupport(env.PATH);
  return support.ok
    ? `✔ bubblewrap (${support.bwrap}): commands run without capabilities in a user namespace of their own, the machine read-only, only the workspace writable, home hidden, no network, limits on processes, memory and bytes written`
    : `✖ none: ${support.reason} — ${support.hint}`;
}

/** Real path where it exists (bubblewrap mounts real paths), else as given. */
function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * What one agent's sandbox shows in each phase: the machine read-only, the home and the project's
 * `.massgen` hidden (other agents' live workspaces and the logs would bypass visibility rules), then
 * granted again: its peers' snapshots, `read` context paths and the previous turn's result read-only,
 * `write` context paths writable only while presenting, protected paths never.
 */
export function sandboxLayout(options: {
  workspace: string;
  peersDir: string | null;
  massgenDir: string;
  contextPaths: readonly ContextPathInfo[];
  previousWorkspace: string | null;
  hiddenPaths: readonly string[];
  network: boolean;
  env: Env;
  /** Real paths shown empty, asked as each sandbox starts (see {@link SandboxLayout.masked}). */
  masked?: () => readonly string[];
}): (phase: ToolContext['phase']) => SandboxLayout {
  const home = homeLayout(options.env);
  const hidden = [...home.hidden, real(options.massgenDir), ...options.hiddenPaths.map(real)];
  const protectedPaths = options.contextPaths.flatMap((c) => c.protectedPaths);
  const always = [
    ...home.readOnly,
    ...(options.peersDir ? [options.peersDir] : []),
    ...(options.previousWorkspace ? [real(options.previousWorkspace)] : []),
  ];
  return (phase) => {
    // An agent's own checkout of an isolated path is writable in every phase.
    const writable = options.contextPaths
      .filter((c) => c.permission === 'write' && (phase === 'presentation' || c.ownCopy === true))
      .map((c) => c.path);
    const readOnly = options.contextPaths.filter((c) => !writable.includes(c.path)).map((c) => c.path);
    return {
      workspace: options.workspace,
      readOnly: [...always, ...readOnly, ...protectedPaths],
      writable,
      hidden,
      network: options.network,
      ...(options.masked ? { masked: options.masked } : {}),
    };
  };
}

/** The `.env` files' real paths (those that exist): what no tool may read, in or out of a sandbox. */
function realFiles(files: readonly string[]): string[] {
  return [...new Set(files.flatMap((f) => (existsSync(f) ? [real(f)] : [])))];
}

/**
 * What no tool of this agent may read or write, asked with real paths: the `.env` files massgen
 * loaded (a fixed check), and what a permission rule denies `read_file` (the rule named).
 */
function pathDenial(envFiles: readonly string[], byRule: PathDenial | undefined): PathDenial {
  return (realPath) => {
    if (envFiles.includes(realPath)) {
      return { why: 'is a .env file massgen loaded keys from; no tool may use it', byRule: false };
    }
    return byRule ? byRule(realPath) : null;
  };
}

/**
 * Everything agents with a workspace need before the run starts (their config already checked by
 * `checkWorkspaceConfig`): the folders (created now), one path policy per agent (its workspace, its
 * peers' snapshots, the context paths, the previous turn's result), where its commands run — an OS
 * sandbox by default, checked here so a missing one is a config error or a warning before anything
 * starts — and, for `execution_mode: docker`, a working Docker engine.
 */
export async function prepareSandboxes(
  config: MassGenConfig,
  env: Env,
  options: {
    projectDir: string;
    contextPaths: readonly ContextPathInfo[];
    previousWorkspace: string | null;
    /** How the winner's changes to isolated context paths are reviewed; `keep`: `--keep-worktrees`. */
    isolation?: { reviewer: Reviewer; keep?: boolean };
    /** The `.env` files the run's keys were read from: masked in every sandbox, refused to every tool. */
    envFiles?: readonly string[];
  },
): Promise<{
  workspaces: RunWorkspaces | null;
  sandboxes: Map<string, AgentSandbox>;
  warnings: RunWarning[];
}> {
  const sandboxes = new Map<string, AgentSandbox>();
  const warnings: RunWarning[] = [];
  const plans = new Map<string, CommandPlan>();
  /** Agents whose `execution_mode: docker` runs in the OS sandbox, this machine having no Docker engine. */
  const fellBack = new Set<string>();
  // Every check comes before any folder is created (or emptied).
  for (const [index, agent] of config.agents.entries()) {
    if (agent.backend.cwd === undefined || agent.backend.enable_code_execution !== true) continue;
    const plan = planCommands(agent, index, env);
    plans.set(agent.id, plan);
    if (plan.mode === null) warnings.push(plan.warning);
    if (plan.mode === 'local') {
      warnings.push({
        code: 'unsandboxed',
        key: `agents[${index}].backend.execution_mode`,
        message: `${agent.id} runs execute_command unsandboxed (execution_mode: local): its commands can read and change anything your user can.`,
      });
    }
    if (plan.mode === 'docker') {
      const fallback = await dockerFallback(agent, index, env);
      if (fallback !== null) {
        plans.set(agent.id, { mode: 'sandbox' });
        fellBack.add(agent.id);
        warnings.push(fallback);
      }
    }
  }
  if ([...plans.values()].some((p) => p.mode === 'sandbox') && processBound() === 'watch') {
    warnings.push({
      code: 'no_process_limit',
      message:
        'massgen runs as root and cannot create a pids cgroup here (the kernel exempts root from RLIMIT_NPROC): a sandboxed command starting processes without end is only stopped at the next check, a tenth of a second later. Run massgen as an ordinary user, or give it a writable cgroupfs.',
    });
  }
  const isolated = isolationSpecs(options.contextPaths);
  if (isolated.length > 0 && !gitAvailable()) {
    const index = options.contextPaths.findIndex((c) => c.path === isolated[0]?.path);
    throw new ConfigError(
      `orchestrator.context_paths[${index}].write_mode: ${isolated[0]?.mode} needs git, and git is not installed here`,
      {
        path: `orchestrator.context_paths[${index}].write_mode`,
        hint: 'install git, or use write_mode: direct',
      },
    );
  }
  let workspaces: RunWorkspaces | null;
  try {
    workspaces = await prepareWorkspaces(config, {
      ...options,
      ...(options.isolation ? { isolation: options.isolation } : { isolation: { reviewer: APPLY_ALL } }),
    });
  } catch (error) {
    if (error instanceof ConfigError || isolated.length === 0) throw error;
    throw new ConfigError(`write_mode: could not make the agents' checkouts: ${describeError(error)}`, {
      hint: 'check that the context path is a readable folder (and, in a git repository, that git works there)',
    });
  }
  if (!workspaces) {
    if (isolated.length > 0) {
      warnings.push({
        code: 'isolation_unused',
        message: `write_mode ${isolated[0]?.mode} has no effect: no agent has a workspace (backend.cwd) to write with`,
      });
    }
    return { workspaces, sandboxes, warnings };
  }
  const massgenDir = path.join(options.projectDir, '.massgen');
  const envFiles = realFiles(options.envFiles ?? []);
  // The permission engine loads only for a config with rules: without any, no rule denies a path.
  const engine = hasPermissionRules(config) ? await import('./tool-permissions.js') : undefined;
  const rules = engine?.agentRuleSets(config, { workspaces, contextPaths: options.contextPaths });
  for (const agent of config.agents) {
    const workspace = workspaces.workspaceOf(agent.id);
    if (workspace === null) continue;
    const contextPaths = workspaces.contextPathsOf(agent.id);
    const agentRules = rules?.get(agent.id);
    const denials = engine && agentRules ? engine.ruleDenials(agentRules) : undefined;
    const checkPath = createPathChecker({
      workspace,
      peerSnapshots: workspaces.peersDirOf(agent.id),
      contextPaths,
      readOnly: workspaces.previousWorkspace ? [workspaces.previousWorkspace] : [],
      denied: pathDenial(envFiles, denials?.read),
    });
    // Rule globs are expanded each time a sandbox starts, against the folders the rules anchor at
    // (an own checkout's original among them: the sandbox shows it read-only where it is not hidden).
    const ruleFolders = [
      real(workspace),
      ...contextPaths.flatMap((c) => [real(c.path), ...(c.original ? [real(c.original)] : [])]),
    ];
    const layout = sandboxLayout({
      workspace,
      peersDir: workspaces.peersDirOf(agent.id),
      massgenDir,
      contextPaths,
      previousWorkspace: workspaces.previousWorkspace,
      hiddenPaths: agent.backend.sandbox.hidden_paths.map((p) => path.resolve(options.projectDir, p)),
      // A container's network setting still holds when its commands fall back to the sandbox.
      network: fellBack.has(agent.id) ? agent.backend.docker.network : agent.backend.sandbox.network,
      env,
      masked: () => [...envFiles, ...(denials ? denials.onDisk(ruleFolders) : [])],
    });
    const support = sandboxSupport(env.PATH);
    const stdioServers = Object.entries(agent.backend.mcp_servers).filter(
      ([, server]) => mcpServerType(server) === 'stdio' && server.sandbox !== false,
    );
    if (!support.ok && stdioServers.length > 0) {
      warnings.push({
        code: 'mcp_unsandboxed',
        key: `agents[${config.agents.indexOf(agent)}].backend.mcp_servers`,
        message: `${agent.id}'s MCP servers (${stdioServers.map(([name]) => name).join(', ')}) run unsandboxed: ${support.reason}.`,
      });
    }
    sandboxes.set(agent.id, {
      workspace,
      checkPath,
      env,
      commands: plans.get(agent.id)?.mode ?? null,
      layout,
      bwrap: support.ok ? support.bwrap : null,
    });
  }
  return { workspaces, sandboxes, warnings };
}
