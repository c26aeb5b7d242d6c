import path from 'node:path';
import type { CapabilityParts, RunContext } from '../capability/index.js';
import { dotEnvFiles } from '../config/config-discovery.js';
import { withUntrustedHint } from '../config/config-relative.js';
import { configNotes, loadConfigFile, loadDotEnv, parseConfig, type MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import type { CriteriaInput } from '../coordination/quality/criteria.js';
import type { LoadedAttachments } from '../media/index.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import type { Tool } from '../tools/define-tool.js';
import type { Env } from '../types/env.js';
import type { RunWarning } from '../types/events.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { findAtPaths, type ContextPathInfo, type Reviewer, type RunWorkspaces } from '../workspace/index.js';
import { loadConfigBackends } from '../backends/registry.js';
import { buildAgentSpecs, prepareBackends, withCapabilityPrompts } from './build-agents.js';
import { agentCustomTools, loadAgentCustomTools } from './build-tools.js';
import { checkWorkspaceConfig } from './build-workspaces.js';
import { builtInCapabilities } from './capabilities.js';
import { loadEvalCriteria } from './coordination-settings.js';
import { withExtraContextPaths } from './extra-context-paths.js';
import { backendNotices } from './backend-notices.js';
import { harnessWarnings } from './harness-checks.js';
import type { MassGenOptions } from './massgen-options.js';
import { mediaWarnings } from './run-attachments.js';
import { prepareSandboxes } from './sandboxes.js';

/** What a run starts from: its folder, environment and config, checked without starting anything. */
export interface RunBase {
  cwd: string;
  env: Env;
  config: MassGenConfig;
  /** Relative paths in the config resolve here (the config file's folder, else `cwd`). */
  baseDir: string;
  projectTrusted: boolean;
  /** `--eval-criteria`: the checklist's criteria from a file. */
  evalCriteria: CriteriaInput | undefined;
  /** The config's context paths, resolved and checked. */
  contextPaths: ContextPathInfo[];
  /** How the config's paths were read: said as warnings at the run's start. */
  notes: string[];
  /** The `.env` files the run's environment came from: empty in every sandbox, hooks' included. */
  envFiles: readonly string[];
}

function resolveConfig(options: MassGenOptions, env: Env, cwd: string): MassGenConfig {
  if (typeof options.config === 'string') return loadConfigFile(options.config, { env, cwd });
  if (Object.isFrozen(options.config) && Array.isArray((options.config as MassGenConfig).agents)) {
    return options.config as MassGenConfig;
  }
  return parseConfig(options.config, { env, cwd, source: 'config object' });
}

/** The config read and its cheap checks done: a bad workspace or context path must not wait for a download. */
export function runBase(options: MassGenOptions): RunBase {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? loadDotEnv(cwd);
  // `@path` in the question: attached read-only, like any extra context path (docs/hooks.md).
  const atPaths = options.atPaths ? findAtPaths(options.question, cwd).map((p) => ({ path: p.path })) : [];
  const config = withExtraContextPaths(
    resolveConfig(options, env, cwd),
    [...(options.contextPaths ?? []), ...atPaths],
    cwd,
  );
  const evalCriteria =
    options.evalCriteria === undefined ? undefined : loadEvalCriteria(options.evalCriteria, cwd);
  // Tool paths in a config file are relative to the file, like every other path in it.
  const baseDir = typeof options.config === 'string' ? path.dirname(path.resolve(cwd, options.config)) : cwd;
  const notes: string[] = [];
  const contextPaths = checkWorkspaceConfig(config, baseDir, { projectDir: cwd, notes });
  return {
    cwd,
    env,
    config,
    baseDir,
    projectTrusted: options.projectTrusted !== false,
    evalCriteria,
    contextPaths,
    notes,
    envFiles: options.envFiles ?? dotEnvFiles({ cwd, ...(options.env ? { env: options.env } : {}) }),
  };
}

/** A run ready for the orchestrator: its agents, its warnings, its workspaces and its capabilities' parts. */
export interface AssembledRun {
  agents: AgentSpec[];
  warnings: RunWarning[];
  workspaces: RunWorkspaces | null;
  /** What each capability the run uses added, in list order. */
  parts: readonly CapabilityParts[];
  /** Ends what the run started (capabilities, coding-agent harnesses); awaited however the run ends. */
  close(): Promise<void>;
}

/**
 * Builds what a run needs, in order: the backends' one-time preparation (model downloads), the
 * config's custom tools, the agents' workspaces and sandboxes, then each capability the run uses
 * (imported now), then the agents. Anything started is stopped again when a step fails.
 */
export async function assembleRun(
  base: RunBase,
  options: MassGenOptions,
  run: { attached: LoadedAttachments; reviewer: Reviewer; scrubber: SecretScrubber },
): Promise<AssembledRun> {
  const { config, env, cwd, baseDir, notes } = base;
  await loadConfigBackends(config);
  const capabilities = [...builtInCapabilities, ...(options.capabilities ?? [])].filter((c) =>
    c.uses(config, options),
  );
  const modules = await Promise.all(capabilities.map((capability) => capability.load()));
  if (!options.agents) {
    // Downloads and file checks happen now, before any agent starts, so a bad model fails cleanly.
    await prepareBackends(config, env, {
      ...(options.onDownloadProgress ? { onProgress: options.onDownloadProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    await Promise.all(closers.map((stop) => stop().catch(() => {})));
  };
  let workspaces: RunWorkspaces | null = null;
  try {
    let custom: Tool[][] = [];
    let sandboxes: ReadonlyMap<string, AgentSandbox> = new Map();
    let setupWarnings: RunWarning[] = [];
    if (!options.agents) {
      custom = await loadAgentCustomTools(config, baseDir, { dir: cwd, notes, trusted: base.projectTrusted });
      const prepared = await prepareSandboxes(config, env, {
        projectDir: cwd,
        contextPaths: base.contextPaths,
        previousWorkspace: options.previousWorkspace ?? null,
        isolation: { reviewer: run.reviewer, keep: options.keepWorktrees === true },
        envFiles: base.envFiles,
      });
      ({ workspaces, sandboxes, warnings: setupWarnings } = prepared);
    }
    const context: RunContext = {
      config,
      options,
      question: options.question,
      env,
      cwd,
      baseDir,
      projectTrusted: base.projectTrusted,
      interactive: options.interactive ?? options.onToolApproval !== undefined,
      sandboxes,
      contextPaths: base.contextPaths.map((c) => c.path),
      envFiles: base.envFiles,
      scrubber: run.scrubber,
      signal: options.signal,
      notes,
    };
    const parts: CapabilityParts[] = [];
    for (const module of modules) {
      const part = await module.prepare(context);
      parts.push(part);
      if (part.close) closers.push(() => part.close!());
    }
    // The orchestrator takes one of each: two would be a mistake of the code that added them.
    for (const key of ['toolHooks', 'stopHook'] as const)
      if (parts.filter((part) => part[key] !== undefined).length > 1)
        throw new Error(`two capabilities of this run give ${key}: at most one may`);
    const said = (order: 'pre' | undefined) =>
      parts.flatMap((part) => (part.warningsOrder === order ? (part.warnings ?? []) : []));
    let agents: AgentSpec[];
    let warnings: RunWarning[];
    if (options.agents) {
      agents = withCapabilityPrompts(options.agents, parts);
      warnings = [...said(undefined), ...mediaWarnings(run.attached.media, options.agents, null)];
    } else {
      agents = buildAgentSpecs(config, env, {
        custom: agentCustomTools(config, custom, parts),
        baseDir,
        sandboxes,
        parts,
        scrubber: run.scrubber,
        ...(options.limiters ? { limiters: options.limiters } : {}),
      });
      // Harnesses keep processes and a tool server between steps: ended with the run.
      for (const { backend } of agents) if (backend.close) closers.push(() => backend.close!());
      // A file over a provider's limit stops the run here, before any request.
      warnings = [
        ...backendNotices(config),
        ...setupWarnings,
        ...said(undefined),
        ...(await harnessWarnings(config, env)),
        ...mediaWarnings(run.attached.media, agents, { config, env }),
      ];
    }
    return {
      agents,
      // MassGen keys the config used that massgen handles differently or not at all: said at run start.
      warnings: [
        ...said('pre'),
        ...configNotes(config).map((note) => ({
          code: 'massgen_compat',
          message: note.message,
          ...(note.path === '' ? {} : { key: note.path }),
        })),
        ...notes.map((message) => ({ code: 'massgen_compat', message })),
        ...warnings,
      ],
      workspaces,
      parts,
      close,
    };
  } catch (error) {
    await close();
    // The agents' worktrees of isolated context paths (and their branches) go with a failed start.
    await (workspaces as RunWorkspaces | null)?.dispose().catch(() => undefined);
    throw withUntrustedHint(error, notes);
  }
}
