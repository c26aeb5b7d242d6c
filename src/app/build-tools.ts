import path from 'node:path';
import { isPythonToolPath } from '../bridge/capability.js';
import type { CapabilityParts } from '../capability/index.js';
import { resolveConfigPath } from '../config/config-relative.js';
import { mcpServerType, type AgentConfig, type MassGenConfig } from '../config/index.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import { createAgentToolRegistry, type AgentToolRegistryOptions } from '../tools/agent-tool-registry.js';
import { customToolProvider, fixedArguments, loadCustomTools } from '../tools/custom/index.js';
import type { Tool } from '../tools/define-tool.js';
import { bwrapArgs, createCommandToolProvider } from '../tools/execute-command/index.js';
import { createFilesystemToolProvider, FILESYSTEM_TOOLS } from '../tools/filesystem/index.js';
import { lazyMcpToolProvider, type McpServerSettings } from '../tools/index.js';
import { withPathGuard } from '../tools/path-arguments-guard.js';
import { createReadMediaToolProvider } from '../tools/read-media/index.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import type { MediaInput } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import type { ToolRegistry } from '../types/tool.js';

/** The tools an agent with a workspace always has; custom tools may not take their names. */
const BUILT_IN_NAMES = new Set([...FILESYSTEM_TOOLS.map((t) => t.name), 'execute_command', 'read_media']);

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

/**
 * Loads every agent's custom tools written in TypeScript or JavaScript (their modules are imported
 * now, so a missing file or export is a config error before any agent starts); those written in
 * Python are the python-tools capability's. `baseDir` is the config file's folder: tool paths are
 * relative to it. Every entry's path is resolved here, so the notes on them keep the config's order.
 */
export async function loadAgentCustomTools(
  config: MassGenConfig,
  baseDir: string,
  /** MassGen's configs name tool modules from the working directory: tried when not beside the config. */
  project?: { dir: string; notes: string[]; trusted?: boolean },
): Promise<Tool[][]> {
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
        fixed: fixedArguments(entry),
      }));
      return loadCustomTools(
        entries.filter((e) => !isPythonToolPath(e.path)),
        { where: `agents[${index}].backend.custom_tools` },
      );
    }),
  );
}

/**
 * Every agent's custom tools: the config's, then those the capabilities add (Python's, the library's,
 * memory's), in list order — none with a reserved or a built-in name, no name twice.
 */
export function agentCustomTools(
  config: MassGenConfig,
  fromConfig: readonly (readonly Tool[])[],
  parts: readonly CapabilityParts[],
): Tool[][] {
  return config.agents.map((agent, index) => {
    const tools = [...(fromConfig[index] ?? []), ...parts.flatMap((part) => part.tools?.[agent.id] ?? [])];
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
  });
}

/** What {@link buildToolRegistry} makes one agent's registry from. */
export interface AgentRegistryInputs {
  agent: AgentConfig;
  /** Its position in `config.agents`. */
  index: number;
  /** Its custom tools (see {@link agentCustomTools}). */
  customTools: readonly Tool[];
  /** Relative paths in MCP settings resolve here (the config file's folder). */
  baseDir: string;
  /** Its workspace's sandbox: file tools, commands and confined MCP servers. */
  sandbox?: AgentSandbox | undefined;
  /** What the agent's model takes besides text: with a workspace and some kind, `read_media` is offered. */
  mediaIn?: MediaInput | undefined;
  /** With a workspace: where results too large for the context go (`toolResultFiles`, src/compression). */
  oversized?: ((workspace: string) => AgentToolRegistryOptions['oversized']) | undefined;
  /** What the run's capabilities add, in list order (their `equip`). */
  parts?: readonly CapabilityParts[];
}

/** Asks each capability in turn what it gives the agent; each sees the sandbox as the ones before left it. */
function equip(inputs: AgentRegistryInputs): {
  first: ToolProvider[];
  providers: ToolProvider[];
  sandbox: AgentSandbox | undefined;
} {
  let sandbox = inputs.sandbox;
  const first: ToolProvider[] = [];
  const providers: ToolProvider[] = [];
  for (const part of inputs.parts ?? []) {
    const equipment = part.equip?.({ agent: inputs.agent, index: inputs.index, sandbox });
    if (!equipment) continue;
    first.push(...(equipment.first ?? []));
    providers.push(...(equipment.providers ?? []));
    if (equipment.sandbox) sandbox = equipment.sandbox;
  }
  return { first, providers, sandbox };
}

/**
 * One agent's tool registry — what the capabilities put first (`load_skill`), its file tools,
 * `read_media` and commands, its custom tools, what the capabilities add after them (the browser, the
 * desktop, media generation) and its MCP servers (not started yet: the run starts them) — behind the
 * config's filters, timeout and result cap. Undefined when the agent has no tools.
 */
export function buildToolRegistry(inputs: AgentRegistryInputs): ToolRegistry | undefined {
  const { agent, customTools, baseDir, mediaIn } = inputs;
  const { backend } = agent;
  const equipment = equip(inputs);
  const { sandbox } = equipment;
  const providers: ToolProvider[] = [...equipment.first];
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
  providers.push(...equipment.providers);
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
    ...(sandbox && inputs.oversized ? { oversized: inputs.oversized(sandbox.workspace) } : {}),
  });
}
