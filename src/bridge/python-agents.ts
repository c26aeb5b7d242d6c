import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { PythonAgent } from './python-agent.js';
import { PYTHON_HOST_SCRIPT } from './python-host.js';
import type { MassGenConfig } from '../config/index.js';
import { bwrapArgs } from '../tools/execute-command/index.js';
import type { RunWarning } from '../types/events.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { agentRoute, isPythonImportName, type ExternalAgent } from './external-agents.js';
import type { Env } from '../types/env.js';
import { isRecord } from '../util/guards.js';

/** Folders a sandboxed Python agent must still read: massgen's bridge, the interpreter's own prefix, user site-packages. */
function pythonReadable(python: string | undefined, env: Env): string[] {
  const dirs = [path.dirname(PYTHON_HOST_SCRIPT)];
  if (python !== undefined && path.isAbsolute(python) && existsSync(python)) {
    dirs.push(path.dirname(path.dirname(realpathSync(python))));
    dirs.push(path.dirname(path.dirname(python))); // a virtualenv's own folder (bin/python is a link out of it)
  }
  if (env.HOME) dirs.push(path.join(env.HOME, '.local', 'lib'));
  return dirs.filter((dir) => existsSync(dir));
}

/**
 * Whether the framework settings give some agent a code executor (`code_execution_config.executor`, at
 * any depth: AG2's group chats nest agents), for the unsandboxed warning.
 */
function runsCode(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(runsCode);
  if (!isRecord(value)) return false;
  const execution = value.code_execution_config;
  if (isRecord(execution) && execution.executor !== undefined) return true;
  return Object.values(value).some(runsCode);
}

/**
 * Starts every Python agent (`type: ag2`, `type: external` with a Python framework or a Python adapter)
 * in a host process of its own and loads it, so a missing framework (`pip install …` named), module or
 * attribute is a config error before the run starts. An agent with a workspace runs inside its sandbox
 * (its folder writable, the machine read-only, the network on for its model), so code it executes — AG2's
 * code executors — is confined too.
 */
export async function startPythonAgents(
  config: MassGenConfig,
  options: {
    baseDir: string;
    cwd: string;
    env: Env;
    sandboxes: ReadonlyMap<string, AgentSandbox>;
    notes: string[];
    /** false: modules are not taken from `cwd` when missing beside the config (an untrusted folder). */
    projectTrusted?: boolean;
  },
): Promise<{ agents: Map<number, ExternalAgent>; warnings: RunWarning[]; close: () => Promise<void> }> {
  const agents = new Map<number, ExternalAgent>();
  const started: PythonAgent[] = [];
  const warnings: RunWarning[] = [];
  const close = async () => {
    await Promise.all(started.map((agent) => agent.close()));
  };
  try {
    for (const [index, agent] of config.agents.entries()) {
      const route = agentRoute(config, index);
      if (route?.kind !== 'python') continue;
      const { backend } = agent;
      const where = `agents[${index}].backend`;
      const relative = (written: string, at: string) =>
        !isPythonImportName(written)
          ? resolveConfigPath(written, at, {
              baseDir: options.baseDir,
              projectDir: options.cwd,
              notes: options.notes,
              projectTrusted: options.projectTrusted,
            })
          : written;
      const settings: Record<string, unknown> = {
        ...backend.provider_options,
        ...(backend.agent_config ? { agent_config: backend.agent_config } : {}),
        ...(backend.group_config ? { group_config: backend.group_config } : {}),
      };
      const sandbox = options.sandboxes.get(agent.id);
      const layout = sandbox?.bwrap ? sandbox.layout('coordination') : undefined;
      if (!layout && runsCode(settings)) {
        warnings.push({
          code: 'unsandboxed',
          key: `${where}.cwd`,
          message: `${agent.id} executes code through its framework unsandboxed: give it cwd: to run it in its workspace's OS sandbox.`,
        });
      }
      const python = new PythonAgent({
        host: {
          ...(config.python ? { python: config.python } : {}),
          cwd: sandbox?.workspace ?? options.cwd,
          env: sandbox ? { ...options.env, TMPDIR: path.join(sandbox.workspace, '.tmp') } : options.env,
          ...(layout && sandbox?.bwrap
            ? {
                prefix: [
                  sandbox.bwrap,
                  ...bwrapArgs({
                    ...layout,
                    readOnly: [
                      ...layout.readOnly,
                      options.baseDir,
                      ...pythonReadable(config.python, options.env),
                    ],
                    network: true,
                    chdir: sandbox.workspace,
                    privateTmp: false,
                  }),
                ],
              }
            : {}),
        },
        framework: route.framework,
        ...(backend.module === undefined ? {} : { module: relative(backend.module, `${where}.module`) }),
        ...(backend.export === undefined ? {} : { export: backend.export }),
        ...(route.adapter === undefined
          ? {}
          : { adapter: relative(route.adapter, `adapters.${route.framework}`) }),
        config: settings,
        baseDir: options.baseDir,
        where,
      });
      started.push(python);
      await python.ready();
      agents.set(index, {
        agent: python,
        module: backend.module ?? route.framework,
        export: backend.export ?? 'step',
        framework: route.framework,
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { agents, warnings, close };
}
