import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { prepareRun } from '../app/run-massgen.js';
import type { Env } from '../app/build-agents.js';
import type { AgentConfig, MassGenConfig } from '../config/index.js';
import { describeError } from '../types/errors.js';
import type { ChildLaunch, ChildLauncher, ChildOutcome } from './subagent-manager.js';

/** The parts of the parent run a child run is made from. */
export interface ParentRun {
  config: MassGenConfig;
  env: Env;
  /** The parent config's folder: custom tool paths of the team are resolved against it. */
  baseDir: string;
  /** An agent's workspace: its subagents' workspaces go under it. */
  workspaceOf(agentId: string): string | null;
  /** Where a subagent of an agent without a workspace works. */
  fallbackWorkDir(id: string): string;
}

type AgentEntry = Omit<AgentConfig, 'id' | 'subagent_agents'> & { id?: string };

/**
 * The team a subagent runs with: its type's own backend, else the spawning agent's `subagent_agents`,
 * else `subagent_orchestrator`, else the spawning agent itself.
 */
export function subagentTeam(
  config: MassGenConfig,
  launch: Pick<ChildLaunch, 'agentId' | 'type'>,
): AgentEntry[] {
  const parent = config.agents.find((a) => a.id === launch.agentId);
  if (launch.type?.backend) return [{ id: launch.type.name, backend: launch.type.backend } as AgentEntry];
  if (parent?.subagent_agents) return [...parent.subagent_agents];
  const team = config.orchestrator.coordination.subagent_orchestrator;
  if (team?.enabled) return [...team.agents];
  if (!parent) return [];
  const { subagent_agents: _nested, ...self } = parent;
  return [self];
}

/** The child run's config: its team, the run's budget and the subagent keys one level down. */
export function childConfig(
  parent: Pick<ParentRun, 'config' | 'baseDir'>,
  launch: Pick<ChildLaunch, 'agentId' | 'type' | 'logRoot'>,
): Record<string, unknown> {
  const { config } = parent;
  const coordination = config.orchestrator.coordination;
  const depth = coordination.max_subagent_depth - 1;
  const agents = subagentTeam(config, launch).map((agent) => ({
    ...agent,
    ...(launch.type
      ? { system_message: [launch.type.systemMessage, agent.system_message].filter(Boolean).join('\n\n') }
      : {}),
    backend: {
      ...agent.backend,
      // Tool modules are named relative to the parent's config file, not the subagent's folder.
      custom_tools: (agent.backend.custom_tools ?? []).map((tool) => ({
        ...tool,
        path: path.resolve(parent.baseDir, tool.path),
      })),
    },
  }));
  return {
    agents,
    orchestrator: {
      max_cost_usd: config.orchestrator.max_cost_usd,
      coordination: {
        enable_subagents: coordination.enable_subagents && depth >= 1,
        subagent_default_timeout: coordination.subagent_default_timeout,
        subagent_min_timeout: coordination.subagent_min_timeout,
        subagent_max_timeout: coordination.subagent_max_timeout,
        subagent_max_concurrent: coordination.subagent_max_concurrent,
        max_subagent_depth: Math.max(0, depth),
        ...(coordination.subagent_orchestrator
          ? { subagent_orchestrator: coordination.subagent_orchestrator }
          : {}),
      },
    },
    pricing: config.pricing,
    rate_limits: config.rate_limits,
    ui: { logging_enabled: launch.logRoot !== null },
  };
}

/** Starts each subagent as a massgen run in this process: its own orchestrator, workspace and logs. */
export function inProcessLauncher(parent: ParentRun): ChildLauncher {
  return async (launch) => {
    const own = parent.workspaceOf(launch.agentId);
    const cwd = own ? path.join(own, 'subagents', launch.id) : parent.fallbackWorkDir(launch.id);
    await mkdir(cwd, { recursive: true });
    let finishedCost: number | null = null;
    const run = await prepareRun({
      question: launch.task,
      config: childConfig(parent, launch),
      cwd,
      env: parent.env,
      envFiles: [],
      // Its folder sits in a workspace a model writes: nothing there is trusted as code.
      projectTrusted: false,
      signal: launch.signal,
      orchestratorTimeoutSeconds: launch.timeoutSeconds,
      ...(launch.logRoot ? { logRoot: launch.logRoot, logging: true } : { logging: false }),
      ...(launch.files.length > 0
        ? { attachments: launch.files.map((f) => ({ name: f.name, data: f.data })) }
        : {}),
      onEvent: (event) => {
        if (event.type === 'run.finished')
          finishedCost = Object.values(event.costUsd).reduce((a, b) => a + b, 0);
        launch.onEvent(event);
      },
    });
    const done = (async (): Promise<ChildOutcome> => {
      try {
        for await (const _event of run.stream()) {
          // Events reach launch.onEvent inside the stream.
        }
      } catch {
        // The result says how the run ended.
      }
      const result = await run.result;
      return {
        state: result.status,
        answer: result.finalAnswer,
        costUsd: finishedCost,
        ...(result.error ? { error: result.error } : {}),
      };
    })().catch((error: unknown): ChildOutcome => ({
      state: 'failed',
      answer: null,
      costUsd: null,
      error: { code: 'run_failed', message: describeError(error) },
    }));
    return {
      steer: (text) => run.steer({ text, source: 'api' }).accepted,
      done,
    };
  };
}
