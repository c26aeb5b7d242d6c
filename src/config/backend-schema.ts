import { z } from 'zod';
import { byteSizeSchema } from './byte-size.js';
import { MediaKindSchema } from '../types/media.js';
import { MediaGenerationConfigSchema } from './media-generation-schema.js';

/**
 * An agent's `backend:` and the tools it carries (MCP servers, custom tools): the largest part of the
 * config schema, in a file of its own (re-exported by schema.ts).
 */

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they use the tool-name alphabet. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

const stringMap = z.record(z.string(), z.string());

/** An MCP server's transport: as written, else `url` without `command` means streamable HTTP. */
export function mcpServerType(server: {
  type?: 'stdio' | 'streamable-http' | undefined;
  command?: string | undefined;
  url?: string | undefined;
}): 'stdio' | 'streamable-http' {
  return (
    server.type ?? (server.url !== undefined && server.command === undefined ? 'streamable-http' : 'stdio')
  );
}

/**
 * One MCP server. `type` may be left out when `command` (stdio) or `url` (streamable HTTP) makes it
 * clear. One flat object rather than a zod union, so a mistake is reported against the exact field.
 */
export const McpServerConfigSchema = z
  .strictObject({
    type: z.enum(['stdio', 'streamable-http']).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default(() => []),
    env: stringMap.default(() => ({})),
    cwd: z.string().min(1).optional(),
    /**
     * A stdio server started by an agent with a workspace runs in that agent's OS sandbox (network
     * on); `false` starts it unconfined.
     */
    sandbox: z.boolean().optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: stringMap.default(() => ({})),
  })
  .superRefine((server, ctx) => {
    const type = mcpServerType(server);
    const need = type === 'stdio' ? 'command' : 'url';
    if (server[need] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [need],
        message:
          type === 'stdio'
            ? 'missing required key "command" for a stdio MCP server (the program to start, e.g. npx or node)'
            : 'missing required key "url" for a streamable-http MCP server',
      });
    }
    const foreign =
      type === 'stdio'
        ? (['url', 'headers'] as const).filter((k) =>
            k === 'url' ? server.url !== undefined : Object.keys(server.headers).length > 0,
          )
        : (['command', 'cwd'] as const).filter((k) => server[k] !== undefined);
    for (const key of foreign) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `"${key}" does not apply to a ${type} MCP server`,
      });
    }
  });

/** A function of the user's own code offered to the model as a tool. */
export const CustomToolConfigSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
    error: 'must be 1-64 letters, digits, "_" or "-" (a name every provider accepts)',
  }),
  description: z.string().optional(),
  /** A .ts/.js module, relative to the config file. */
  path: z.string().min(1),
  /** The export to call (or a `defineTool` export). */
  function: z.string().min(1),
  /** JSON Schema of the arguments; omit when the module exports a zod schema or a `defineTool`. */
  parameters: z.record(z.string(), z.unknown()).optional(),
  /** Planning mode: the tool only reads, so it may run during coordination. */
  read_only: z.boolean().optional(),
  /**
   * Arguments fixed by the config (MassGen's key): hidden from the model's schema and merged into every
   * call, over anything the model sends for them.
   */
  preset_args: z.record(z.string(), z.unknown()).optional(),
  /** Arguments used when the model leaves them out (MassGen's key); the model may still give its own. */
  default_params: z.record(z.string(), z.unknown()).optional(),
});

export const BackendConfigSchema = z.strictObject({
  /** Which backend family; the app layer checks it against the backend registry. */
  type: z.string().min(1, { error: 'must not be empty' }),
  /** Required by every backend except agents from other frameworks, which bring their own (checked by the app). */
  model: z.string().min(1, { error: 'must not be empty' }).optional(),
  /** An agent from another framework (`type: ai_sdk_agent`, …): its module, relative to the config file. */
  module: z.string().min(1).optional(),
  /** The module's export that is the agent (default: `default`; Python agents: `step`). */
  export: z.string().min(1).optional(),
  /**
   * `type: external`: the agent's framework — `langgraph`, `openai_agents`, `ai_sdk_agent`, `python`,
   * `ag2`, `smolagents`, `agentscope`, `crewai` — or an adapter named under `adapters:`.
   */
  framework: z.string().min(1).optional(),
  /** Coding-agent harnesses (MassGen's `claude_code` keys): how the harness asks for permission. */
  permission_mode: z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan']).optional(),
  /** Harnesses: the harness's own tools it may never use (e.g. `WebFetch`). */
  disallowed_tools: z.array(z.string().min(1)).optional(),
  /** Harnesses: replaces the harness's own system prompt. */
  system_prompt: z.string().optional(),
  /** Harnesses: added to the harness's system prompt. */
  append_system_prompt: z.string().optional(),
  /** Harnesses: the thinking budget. */
  max_thinking_tokens: z.int().positive().optional(),
  /** `type: ag2` (MassGen's shape): one AG2 agent — `type`, `name`, `system_message`, `llm_config`, … */
  agent_config: z.record(z.string(), z.unknown()).optional(),
  /** `type: ag2` (MassGen's shape): an AG2 group chat — `llm_config`, `agents`, `pattern`, `max_rounds`. */
  group_config: z.record(z.string(), z.unknown()).optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  api_key: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.int().positive().optional(),
  max_retries: z.int().min(0).default(3),
  headers: z.record(z.string(), z.string()).optional(),
  /** The model's context window in tokens; requests are trimmed to fit it (default: known per model). */
  context_window: z.int().positive().optional(),
  /** A named preset of the backend (e.g. `groq` for `chatcompletion`); checked by the app layer. */
  provider: z.string().min(1).optional(),
  /** Provider-side features; the app checks each against the backend's capabilities. */
  enable_web_search: z.boolean().optional(),
  enable_code_execution: z.boolean().optional(),
  /** OpenAI's name for code execution. */
  enable_code_interpreter: z.boolean().optional(),
  /** MassGen's keys: the `generate_image` tool (docs/multimodal.md, "Media out"); needs `cwd`. */
  enable_image_generation: z.boolean().optional(),
  /** The `generate_speech` and `transcribe` tools; needs `cwd`. */
  enable_audio_generation: z.boolean().optional(),
  /** The `generate_video` tool; needs `cwd`. */
  enable_video_generation: z.boolean().optional(),
  /** The model (and provider) of each media tool; default: the agent's own provider's. */
  media_generation: MediaGenerationConfigSchema.optional(),
  reasoning: z
    .strictObject({
      effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
      summary: z.enum(['auto', 'concise', 'detailed']).optional(),
    })
    .optional(),
  text: z.strictObject({ verbosity: z.enum(['low', 'medium', 'high']) }).optional(),
  thinking: z
    .strictObject({
      budget_tokens: z.int().positive().optional(),
      include_thoughts: z.boolean().optional(),
    })
    .optional(),
  /** Sampling options for local servers (vLLM, SGLang), sent in the request body. */
  top_k: z.int().positive().optional(),
  repetition_penalty: z.number().positive().optional(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).optional(),
  /**
   * The media kinds the model takes (`[image, audio, video, document]`), replacing the backend's own
   * figure: a served model that reads video (Qwen-VL), or `[]` for one that reads no images.
   */
  media_in: z.array(MediaKindSchema).optional(),
  /** The `local` backend: CPU threads, context window and GPU use. */
  threads: z.int().positive().optional(),
  context_size: z.int().min(128).optional(),
  gpu: z.union([z.boolean(), z.enum(['auto', 'cuda', 'vulkan', 'metal'])]).optional(),
  /** Deliberately open: passed to the provider untouched. */
  provider_options: z.record(z.string(), z.unknown()).default(() => ({})),
  /** MCP servers by name; their tools appear as `mcp__<name>__<tool>`. */
  mcp_servers: z
    .record(
      z.string().regex(MCP_SERVER_NAME_PATTERN, {
        error: 'server names may contain only letters, digits, "_" and "-" (they become part of tool names)',
      }),
      McpServerConfigSchema,
      {
        error: (issue) =>
          Array.isArray(issue.input)
            ? 'mcp_servers written as a list needs a unique "name" on every entry (or write a mapping of server name to settings, e.g. "everything: {command: npx, args: [...]}")'
            : undefined,
      },
    )
    .default(() => ({})),
  custom_tools: z.array(CustomToolConfigSchema).default(() => []),
  /** Only these tools (final names, `*` wildcards) are offered. Workflow tools are always offered. */
  allowed_tools: z.array(z.string().min(1)).optional(),
  /** These tools (final names, `*` wildcards) are never offered. */
  exclude_tools: z.array(z.string().min(1)).default(() => []),
  /**
   * The agent's workspace: `.massgen/workspaces/<cwd>/`. Gives it the filesystem tools, and with
   * `enable_code_execution` the `execute_command` tool, both confined to it.
   */
  cwd: z.string().min(1).optional(),
  /**
   * Where `execute_command` runs: `sandbox` (an OS sandbox — bubblewrap on Linux — the default where
   * available), `docker` (a per-agent container) or `local` (unconfined, with a warning). Unset: the
   * sandbox where available, else no `execute_command` (the run says why).
   */
  execution_mode: z.enum(['sandbox', 'local', 'docker']).optional(),
  command_timeout_seconds: z.number().positive().default(120),
  /**
   * The most a command may write, in MiB: no file may grow larger (RLIMIT_FSIZE), and the disk holding
   * the workspace may not grow by more while it runs (nor the sandbox's in-memory /tmp hold more).
   */
  command_max_file_size_mb: z.number().positive().default(1024),
  /** The most processes (threads included) a command may run at once in the sandbox or a container. */
  command_max_processes: z.int().min(16).default(512),
  sandbox: z
    .strictObject({
      /** Network access inside the sandbox (off by default: only a private loopback). */
      network: z.boolean().default(false),
      /** Folders hidden inside the sandbox besides the user's home. */
      hidden_paths: z.array(z.string().min(1)).default(() => []),
      /**
       * The most memory one command may use (`512m`, `2g`, or bytes): its cgroup's `memory.max` where
       * massgen may make one (root), else each process's address space (RLIMIT_AS). Output: bytes.
       */
      memory: byteSizeSchema(16 * 1024 ** 2).default(2 * 1024 ** 3),
    })
    .prefault({}),
  docker: z
    .strictObject({
      image: z.string().min(1).default('debian:bookworm-slim'),
      /** Docker's `--memory`, e.g. `2g`. */
      memory: z.string().min(1).default('2g'),
      cpus: z.number().positive().default(2),
      /** Network access inside the container (off by default). */
      network: z.boolean().default(false),
      /**
       * Without a Docker engine here: `sandbox` runs the commands in the OS sandbox instead (with a
       * warning saying what differs), `error` stops the run before it starts.
       */
      fallback: z.enum(['sandbox', 'error']).default('sandbox'),
    })
    .prefault({}),
  /** A tool call running longer is abandoned and answered with a tool error. */
  tool_timeout_seconds: z.number().positive().default(60),
  /** Tool results longer than this many characters are cut, with a note saying so. */
  max_tool_result_chars: z.int().min(100).default(20_000),
});
