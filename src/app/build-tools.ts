import path from 'node:path';
import { resolveConfigPath } from './config-relative.js';
import { loadPythonTools } from './python-tools.js';
import type { PythonHost } from '../bridge/index.js';
import { mcpServerType, type AgentConfig, type MassGenConfig } from '../config/index.js';
import { createAgentToolRegistry } from '../tools/agent-tool-registry.js';
import { customToolProvider, loadCustomTools } from '../tools/custom/index.js';
import type { Tool } from '../tools/define-tool.js';
import {
  bwrapArgs,
  createCommandToolProvider,
  type ExecutionMode,
  type SandboxLayout,
} from '../tools/execute-command/index.js';
import { createFilesystemToolProvider, FILESYSTEM_TOOLS } from '../tools/filesystem/index.js';
import { lazyMcpToolProvider, type McpServerSettings } from '../tools/index.js';
import { withPathGuard } from '../tools/path-arguments-guard.js';
import { createReadMediaToolProvider } from '../tools/read-media/index.js';
import type { MediaInput } from '../types/backend.js';
import type { BrowserConfig } from '../config/browser-schema.js';
import type { ComputerConfig } from '../config/computer-schema.js';
import type { Skill } from '../skills/index.js';
import type { CheckPath } from '../tools/permissions/index.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import { ConfigError } from '../types/errors.js';
import type { ToolContext, ToolRegistry } from '../types/tool.js';
import { closestMatch } from '../util/closest-match.js';
import { loadedFeature, requestsMediaGeneration, type ToolFeatures } from './tool-features.js';

/**
 * What an agent with a workspace works inside: its folder, the path policy of its file tools, the
 * environment for commands, where `execute_command` runs (null: not offered), and what its OS sandbox
 * shows in each phase (`bwrap` null where this machine has no sandbox).
 */
export interface AgentSandbox {
  workspace: string;
  checkPath: CheckPath;
  env: Readonly<Record<string, string | undefined>>;
  commands: ExecutionMode | null;
  layout: (phase: ToolContext['phase']) => SandboxLayout;
  bwrap: string | null;
}

/** The tools an agent with a workspace always has; custom tools may not take their names. */
const BUILT_IN_NAMES = new Set([...FILESYSTEM_TOOLS.map((t) => t.name), 'execute_command', 'read_media']);

/** Tools given in code (library callers), by agent id. */
export type ToolsByAgent = Readonly<Record<string, readonly Tool[]>>;

/**
 * The MCP settings of one config entry, with `type` made explicit and `cwd` resolved. A stdio server
 * of an agent with a sandbox starts inside it (unless `sandbox: false`): the agent's view of the
 * machine (but the real `/tmp`, read-only), plus the config's folder (where server scripts live)
 * read-only and the package runners' caches writable, with network — servers are often API clients.
 */
function mcpSettings(
  server: AgentConfig['backend']['mcp_servers'][string],
  baseDir: string,
  sandbox?: AgentSandbox,
): McpServerSettings {
  const type = mcpServerType(server);
  if (type === 'streamable-http') {
    return { type, url: server.url as string, headers: { ...server.headers } };
  }
  const cwd = server.cwd === undefined ? undefined : path.resolve(baseDir, server.cwd);
  const command = server.command as string;
  const confined = sandbox?.bwrap && server.sandbox !== false;
  const layout = sandbox?.layout('coordination');
  const home = sandbox?.env.HOME;
  return {
    type,
    ...(confined && layout
      ? {
          command: sandbox.bwrap!,
          args: [
            ...bwrapArgs({
              ...layout,
              readOnly: [...layout.readOnly, baseDir, ...(cwd ? [cwd] : [])],
              writable: home ? [path.join(home, '.npm'), path.join(home, '.cache')] : [],
              network: true,
              chdir: cwd ?? sandbox.workspace,
              privateTmp: false,
            }),
            command,
            ...server.args,
          ],
        }
      : { command, args: [...server.args] }),
    env: {
      ...(confined ? { TMPDIR: path.join(sandbox!.workspace, '.tmp') } : {}),
      ...server.env,
    },
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** Library tools must name agents that exist; a typo would silently leave an agent without tools. */
function checkToolsByAgent(config: MassGenConfig, tools: ToolsByAgent): void {
  const ids = config.agents.map((a) => a.id);
  for (const id of Object.keys(tools)) {
    if (ids.includes(id)) continue;
    const near = closestMatch(id, ids);
    throw new ConfigError(
      `tools were given for agent "${id}", which is not in the config${near ? ` — did you mean "${near}"?` : ''}`,
      {
        hint: `agents: ${ids.join(', ')}`,
      },
    );
  }
}

/**
 * Loads every agent's custom tools (their modules are imported now, so a missing file or export is a
 * config error before any agent starts). `baseDir` is the config file's folder: tool paths are
 * relative to it.
 */
export async function loadAgentCustomTools(
  config: MassGenConfig,
  baseDir: string,
  extra: ToolsByAgent = {},
  options: {
    /** MassGen's configs name tool modules from the working directory: tried when not beside the config. */
    project?: { dir: string; notes: string[]; trusted?: boolean };
    /** The run's Python host, for tools written in Python (started on first use). */
    python?: () => PythonHost;
  } = {},
): Promise<Tool[][]> {
  checkToolsByAgent(config, extra);
  const { project } = options;
  return Promise.all(
    config.agents.map(async (agent, index) => {
      const entries = agent.backend.custom_tools.map((entry, toolIndex) => ({
        where: `agents[${index}].backend.custom_tools[${toolIndex}]`,
        name: entry.name,
        path: resolveConfigPath(entry.path, `agents[${index}].backend.custom_tools[${toolIndex}].path`, {
          baseDir,
          projectDir: project?.dir,
          notes: project?.notes,
          projectTrusted: project?.trusted,
        }),
        function: entry.function,
        ...(entry.description === undefined ? {} : { description: entry.description }),
        ...(entry.parameters === undefined ? {} : { parameters: entry.parameters }),
        ...(entry.read_only === undefined ? {} : { readOnly: entry.read_only }),
      }));
      const isPython = (e: { path: string }) => path.extname(e.path).toLowerCase() === '.py';
      const python = entries.filter(isPython);
      const fromConfig = [
        ...(await loadCustomTools(
          entries.filter((e) => !isPython(e)),
          { where: `agents[${index}].backend.custom_tools` },
        )),
        ...(python.length > 0 && options.python ? await loadPythonTools(python, options.python()) : []),
      ];
      const tools = [...fromConfig, ...(extra[agent.id] ?? [])];
      const seen = new Set<string>();
      for (const tool of tools) {
        if (tool.name.startsWith('mcp__')) {
          throw new ConfigError(
            `agents[${index}] (${agent.id}): custom tool "${tool.name}" uses the mcp__ prefix`,
            {
              path: `agents[${index}].backend.custom_tools`,
              hint: 'names starting with mcp__ are reserved for MCP server tools (mcp__<server>__<tool>)',
            },
          );
        }
        if (agent.backend.cwd !== undefined && BUILT_IN_NAMES.has(tool.name)) {
          throw new ConfigError(
            `agents[${index}] (${agent.id}): custom tool "${tool.name}" has the name of a built-in workspace tool`,
            {
              path: `agents[${index}].backend.custom_tools`,
              hint: `agents with a workspace have ${[...BUILT_IN_NAMES].join(', ')}; rename the custom tool`,
            },
          );
        }
        if (seen.has(tool.name)) {
          throw new ConfigError(`agents[${index}] (${agent.id}): two custom tools are named "${tool.name}"`, {
            path: `agents[${index}].backend.custom_tools`,
            hint: 'give each tool its own name',
          });
        }
        seen.add(tool.name);
      }
      return tools;
    }),
  );
}

/**
 * One agent's tool registry: its MCP servers (not started yet — the run starts them) and its custom
 * tools, behind the config's filters, timeout and result cap. Undefined when the agent has no tools.
 */
export function buildToolRegistry(
  agent: AgentConfig,
  customTools: readonly Tool[],
  baseDir: string,
  sandbox?: AgentSandbox,
  skills: readonly Skill[] = [],
  /** `tools.browser`: the agent's own Chromium (docs/browser.md). */
  browser?: BrowserConfig,
  /** `tools.computer`: the agent's own virtual desktop (docs/computer-use.md). */
  computer?: ComputerConfig,
  /** The modules of the skills, browser and computer tools (`loadToolFeatures`), when those are used. */
  features: ToolFeatures = {},
  /** What the agent's model takes besides text: with a workspace and some kind, `read_media` is offered. */
  mediaIn?: MediaInput,
): ToolRegistry | undefined {
  const { backend } = agent;
  const providers: ToolProvider[] = [];
  // Skills: load_skill, and their folders read-only in the sandbox (skills-tools.ts).
  if (skills.length > 0) {
    const withSkills = loadedFeature(features.skills, 'skills').toolProvider(skills, sandbox);
    providers.push(withSkills.provider);
    sandbox = withSkills.sandbox;
  }
  if (sandbox) {
    providers.push(
      createFilesystemToolProvider({ checkPath: sandbox.checkPath, workspace: sandbox.workspace }),
    );
    if (mediaIn && mediaIn.kinds.length > 0)
      providers.push(
        createReadMediaToolProvider({
          checkPath: sandbox.checkPath,
          workspace: sandbox.workspace,
          media: mediaIn,
        }),
      );
    if (sandbox.commands !== null) {
      providers.push(
        createCommandToolProvider({
          workspace: sandbox.workspace,
          timeoutMs: backend.command_timeout_seconds * 1000,
          maxOutputChars: backend.max_tool_result_chars,
          env: Object.fromEntries(
            Object.entries(sandbox.env).filter((e): e is [string, string] => e[1] !== undefined),
          ),
          mode: sandbox.commands,
          docker: {
            image: backend.docker.image,
            memory: backend.docker.memory,
            cpus: backend.docker.cpus,
            network: backend.docker.network,
          },
          ...(sandbox.bwrap ? { sandbox: { bwrap: sandbox.bwrap, layout: sandbox.layout } } : {}),
          maxFileSizeBytes: backend.command_max_file_size_mb * 1024 * 1024,
          maxProcesses: backend.command_max_processes,
          maxMemoryBytes: backend.sandbox.memory,
        }),
      );
    }
  }
  if (customTools.length > 0) providers.push(customToolProvider(customTools));
  if (browser) providers.push(loadedFeature(features.browser, 'browser')(agent, browser, sandbox));
  if (computer) providers.push(loadedFeature(features.computer, 'computer')(agent, computer, sandbox));
  // enable_image/audio/video_generation: generate_image, generate_speech, transcribe, generate_video.
  if (requestsMediaGeneration(agent)) {
    const media = loadedFeature(features.mediaGeneration, 'mediaGeneration')(agent, sandbox);
    if (media) providers.push(media);
  }
  if (features.taskPlan) providers.push(features.taskPlan(sandbox?.workspace ?? null));
  if (features.askOthers) providers.push(features.askOthers.toolProvider(agent.id));
  for (const [name, server] of Object.entries(backend.mcp_servers)) {
    const provider = lazyMcpToolProvider(name, mcpSettings(server, baseDir, sandbox));
    // With a workspace, MCP path arguments obey the same policy as the built-in tools.
    providers.push(sandbox ? withPathGuard(provider, sandbox.checkPath) : provider);
  }
  if (providers.length === 0) return undefined;
  return createAgentToolRegistry({
    providers,
    ...(backend.allowed_tools === undefined ? {} : { allowedTools: backend.allowed_tools }),
    excludeTools: backend.exclude_tools,
    timeoutMs: backend.tool_timeout_seconds * 1000,
    maxResultChars: backend.max_tool_result_chars,
  });
}
