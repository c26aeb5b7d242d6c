/**
 * MassGen's config keys that are not massgen's own, in one table: what each becomes here. The compat
 * pass (`massgen-compat.ts`) applies it; `docs/massgen-compat.md` lists every row (a test keeps the two
 * in step). Paths use `*` for any list entry; `agent.` means each agent (`agents[*]` and `agent`),
 * `backend.` each agent's backend.
 */

/** What a MassGen key becomes. */
export type CompatRule =
  /** Renamed: the value moves to `to` (a path relative to the same parent), maybe converted. */
  | { kind: 'alias'; to: string; convert?: (value: unknown) => { value: unknown; note?: string } | undefined }
  /** Done here without configuration: accepted, and the note says how (shown as a warning). */
  | { kind: 'automatic'; note: string }
  /** Not supported: accepted with a warning naming the key, and otherwise ignored. */
  | { kind: 'unsupported'; note: string }
  /** Informational only (e.g. a tool's category): accepted and dropped without a word. */
  | { kind: 'metadata' };

const network = (value: unknown) =>
  typeof value === 'string' ? { value: value !== 'none' } : value === undefined ? undefined : { value };

/** MassGen's `command_line_execution_mode: local` is the host; here the host is the OS sandbox. */
const executionMode = (value: unknown) =>
  value === 'local'
    ? {
        value: undefined,
        note: 'MassGen\'s "local" mode runs commands here in the OS sandbox (the default); write execution_mode: local to run them unconfined',
      }
    : { value };

/** `key` → rule. Keys are dotted paths under the config root. */
export const MASSGEN_KEYS: Readonly<Record<string, CompatRule>> = {
  // Code execution (MassGen's MCP command line).
  'backend.enable_mcp_command_line': { kind: 'alias', to: 'enable_code_execution' },
  'backend.command_line_execution_mode': { kind: 'alias', to: 'execution_mode', convert: executionMode },
  'backend.command_line_docker_image': { kind: 'alias', to: 'docker.image' },
  'backend.command_line_docker_memory_limit': { kind: 'alias', to: 'docker.memory' },
  'backend.command_line_docker_cpu_limit': {
    kind: 'alias',
    to: 'docker.cpus',
    convert: (value) => ({ value: typeof value === 'string' ? Number(value) : value }),
  },
  'backend.command_line_docker_network_mode': { kind: 'alias', to: 'docker.network', convert: network },
  'backend.command_line_allowed_commands': {
    kind: 'unsupported',
    note: 'command allow-lists are not supported: the OS sandbox confines every command instead',
  },
  'backend.command_line_blocked_commands': {
    kind: 'unsupported',
    note: 'command block-lists are not supported: the OS sandbox confines every command instead',
  },
  'backend.command_line_docker_enable_sudo': {
    kind: 'unsupported',
    note: 'sudo inside the container is not supported',
  },
  'backend.command_line_docker_credentials': {
    kind: 'unsupported',
    note: 'credentials for the container are not supported: pass what a tool needs through its own config',
  },
  'backend.command_line_docker_packages': {
    kind: 'unsupported',
    note: 'packages installed at container start are not supported: use an image that has them',
  },
  // Workspaces and snapshots: massgen keeps these itself, under .massgen/.
  'orchestrator.snapshot_storage': {
    kind: 'automatic',
    note: 'answer snapshots are kept automatically in .massgen/snapshots',
  },
  'orchestrator.agent_temporary_workspace': {
    kind: 'automatic',
    note: "peers' read-only copies are kept automatically in .massgen/temp_workspaces",
  },
  'orchestrator.session_storage': {
    kind: 'automatic',
    note: 'sessions are kept automatically in .massgen/sessions',
  },
  // Display.
  'ui.type': { kind: 'alias', to: 'display_type' },
  display: {
    kind: 'unsupported',
    note: 'display settings are not supported: the terminal view picks its own',
  },
  // Features massgen does not have (yet).
  memory: { kind: 'unsupported', note: 'persistent memory is not supported' },
  'orchestrator.debug_final_answer': {
    kind: 'unsupported',
    note: 'a debug final answer is not supported; use ScriptedBackend (massgen/testing) to script runs',
  },
  'orchestrator.skip_coordination_rounds': {
    kind: 'unsupported',
    note: 'skipping coordination is not supported; one agent answers directly anyway',
  },
  'orchestrator.dspy': {
    kind: 'unsupported',
    note: 'DSPy question paraphrasing is not supported; see orchestrator.paraphrase',
  },
  'orchestrator.coordination.enable_agent_task_planning': {
    kind: 'unsupported',
    note: 'task planning tools are not supported',
  },
  'orchestrator.coordination.task_planning_filesystem_mode': {
    kind: 'unsupported',
    note: 'task planning tools are not supported',
  },
  'orchestrator.coordination.max_tasks_per_plan': {
    kind: 'unsupported',
    note: 'task planning tools are not supported',
  },
  'orchestrator.coordination.use_skills': { kind: 'unsupported', note: 'skills are not supported' },
  'orchestrator.coordination.skills_directory': { kind: 'unsupported', note: 'skills are not supported' },
  'orchestrator.coordination.enable_memory_filesystem_mode': {
    kind: 'unsupported',
    note: 'memory files are not supported',
  },
  // Backend features massgen does not offer.
  'backend.enable_image_generation': { kind: 'unsupported', note: 'image generation is not supported' },
  'backend.enable_audio_generation': { kind: 'unsupported', note: 'audio generation is not supported' },
  'backend.enable_video_generation': { kind: 'unsupported', note: 'video generation is not supported' },
  'backend.enable_file_generation': { kind: 'unsupported', note: 'file generation tools are not supported' },
  'backend.upload_files': {
    kind: 'unsupported',
    note: 'file uploads to the provider are not supported; give the files as context_paths',
  },
  'backend.top_p': { kind: 'unsupported', note: 'top_p is not passed on; use temperature' },
  'backend.extra_body': {
    kind: 'unsupported',
    note: 'extra_body is not passed on; provider_options takes provider-specific settings',
  },
  'backend.betas': {
    kind: 'unsupported',
    note: 'Anthropic beta headers are not sent; use headers: {anthropic-beta: …}',
  },
  'agent.append_system_prompt': { kind: 'alias', to: 'backend.append_system_prompt' },
  // Custom tools.
  'backend.custom_tools.*.category': { kind: 'metadata' },
  'backend.custom_tools.*.preset_args': {
    kind: 'unsupported',
    note: 'preset arguments are not supported: the model gives every argument',
  },
  'backend.custom_tools.*.default_params': {
    kind: 'unsupported',
    note: 'default parameters are not supported: give defaults in the tool function itself',
  },
  // MCP servers.
  'backend.mcp_servers.*.security': {
    kind: 'automatic',
    note: 'MCP security levels are not configurable: stdio servers run in the OS sandbox of agents with a workspace',
  },
};
