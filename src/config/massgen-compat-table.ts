import { CRITERIA_PRESETS } from '../types/criteria-schema.js';
import { isRecord } from '../util/guards.js';

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

/** MassGen's checklist presets that massgen does not ship fall back to the general `evaluation` set. */
const checklistPreset = (value: unknown) =>
  typeof value !== 'string' || (CRITERIA_PRESETS as readonly string[]).includes(value)
    ? { value }
    : {
        value: 'evaluation',
        note: `MassGen's "${value}" criteria preset is not shipped: the "evaluation" preset is used (presets: ${CRITERIA_PRESETS.join(', ')})`,
      };

/**
 * MassGen's DSPy paraphrasing gives agents the question in other words; `paraphrase` does the same with
 * each agent's own model. Off (or not an object): nothing to do.
 */
const dspyToParaphrase = (value: unknown) =>
  isRecord(value) && value.enabled === true
    ? {
        value: true,
        note: "becomes paraphrase: true — each agent after the first also reads the question restated by its own model (DSPy's backend, num_variants and strategy are not used)",
      }
    : { value: undefined };

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
  // Converted before the table applies (massgen-compat-permissions.ts); the rows document them.
  'backend.command_line_allowed_commands': {
    kind: 'automatic',
    note: "become the agent's permission rules: allow execute_command with these command_regex, deny every other command",
  },
  'backend.command_line_blocked_commands': {
    kind: 'automatic',
    note: "become the agent's permission rules: deny execute_command with these command_regex",
  },
  'orchestrator.coordination.write_mode': {
    kind: 'automatic',
    note: 'becomes write_mode on every write context path (auto and worktree: worktree; isolated; legacy: direct)',
  },
  'orchestrator.coordination.use_two_tier_workspace': {
    kind: 'automatic',
    note: 'deprecated in MassGen; true becomes write_mode: worktree on every write context path',
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
  // Converted before the table applies (massgen-compat-display.ts); the row documents it.
  display: {
    kind: 'automatic',
    note: 'becomes ui: type → ui.display_type (textual_terminal → rich_terminal), logging_enabled → ui.logging_enabled',
  },
  // Features massgen does not have (yet).
  // MassGen's memory (mem0 + Qdrant): massgen keeps memories in LanceDB (docs/memory.md).
  'memory.conversation_memory': {
    kind: 'automatic',
    note: 'conversation memory is automatic: each agent sees the whole run and the session history',
  },
  'memory.persistent_memory': {
    kind: 'unsupported',
    note: 'mem0/Qdrant settings are not used: memories live in LanceDB under memory.store; set memory.embedding for vector search (docs/memory.md)',
  },
  'memory.retrieval': {
    kind: 'unsupported',
    note: 'retrieval settings are memory.top_k and memory.budget_chars here',
  },
  'memory.recording': { kind: 'unsupported', note: 'memory recording is not supported' },
  'memory.debug': { kind: 'metadata' },
  'orchestrator.dspy': { kind: 'alias', to: 'paraphrase', convert: dspyToParaphrase },
  // Converted before the table applies (massgen-compat-skills.ts); the rows document them.
  'orchestrator.coordination.use_skills': {
    kind: 'automatic',
    note: 'true becomes skills: [skills_directory] (default .agent/skills): Agent Skills with load_skill',
  },
  'orchestrator.coordination.skills_directory': {
    kind: 'automatic',
    note: 'with use_skills: true, the folder of skills: (relative to the config file, else the working folder)',
  },
  'orchestrator.coordination.load_previous_session_skills': {
    kind: 'automatic',
    note: 'true turns on skills.evolve: a winning answer may propose a skill, kept with massgen skills accept',
  },
  // The quality loop: MassGen's own presets beyond massgen's five.
  'orchestrator.coordination.checklist_criteria_preset': {
    kind: 'alias',
    to: 'checklist_criteria_preset',
    convert: checklistPreset,
  },
  // Backend features massgen does not offer.
  // enable_image_generation, enable_audio_generation, enable_video_generation are massgen's own keys
  // too (the media tools, docs/multimodal.md); MassGen's multimodal tools map onto them (massgen-compat-media.ts).
  'backend.enable_file_generation': { kind: 'unsupported', note: 'file generation tools are not supported' },
  // Converted before the table applies (massgen-compat-uploads.ts); the row documents it.
  'backend.upload_files': {
    kind: 'automatic',
    note: "become the config's attachments: sent with the question to every agent whose model takes them (the whole team)",
  },
  // Converted before the table applies (massgen-compat-hooks.ts); the row documents it.
  'backend.hooks': {
    kind: 'automatic',
    note: "become the agent's hooks in Claude Code's format (handler → command); Python callables are left out (docs/hooks.md)",
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
  // preset_args and default_params are massgen's own keys too (config/backend-schema.ts).
  // MCP servers.
  'backend.mcp_servers.*.security': {
    kind: 'automatic',
    note: 'MCP security levels are not configurable: stdio servers run in the OS sandbox of agents with a workspace',
  },
};
