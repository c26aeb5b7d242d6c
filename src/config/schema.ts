import { z } from 'zod';
import { isRecord } from '../util/guards.js';
import { isShownName } from './config-path.js';
import { checklistCoordinationKeys, qualityOrchestratorKeys } from './quality-schema.js';
import { agentWorkCoordinationKeys } from './agent-work-schema.js';
import { MemoryConfigSchema } from './memory-schema.js';
import { PermissionRulesSchema, WriteModeSchema } from './permission-schema.js';
import { HooksConfigSchema } from './hooks-schema.js';
import { AgentSkillsSchema, SkillsConfigSchema } from './skills-schema.js';
import { ComputerConfigSchema } from './computer-schema.js';
import { BrowserConfigSchema } from './browser-schema.js';
export {
  BackendConfigSchema,
  CustomToolConfigSchema,
  MCP_SERVER_NAME_PATTERN,
  McpServerConfigSchema,
  mcpServerType,
} from './backend-schema.js';
import { BackendConfigSchema } from './backend-schema.js';
import type { CustomToolConfigSchema, McpServerConfigSchema } from './backend-schema.js';

/**
 * The config file schema: the single source of truth for keys, types and defaults. Unknown-key
 * suggestions are computed by walking this schema, so a key added here is picked up everywhere.
 *
 * YAML keys stay snake_case in the parsed result too, so what a user reads in an error message is
 * exactly what they typed.
 */

/** Ids end up in file names and log lines, so keep them to a safe, readable alphabet. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Dollars per million tokens for one model (overrides the built-in price table). */
export const PriceConfigSchema = z.strictObject({
  input_per_million: z.number().nonnegative(),
  output_per_million: z.number().nonnegative(),
  cached_input_per_million: z.number().nonnegative().optional(),
});

/** Client-side limits for one model, shared by every agent that uses it. */
export const RateLimitConfigSchema = z.strictObject({
  requests_per_minute: z.int().positive().optional(),
  concurrent_requests: z.int().positive().optional(),
});

/** One agent as written, without the keys that nest agents (a subagent team's entries use this). */
export const BaseAgentConfigSchema = z.strictObject({
  /** Defaults to `agent_<n>` (1-based position) during normalisation. */
  id: z
    .string()
    .regex(AGENT_ID_PATTERN, {
      error: 'must start with a letter or digit and contain only letters, digits, "_", "." and "-"',
    })
    .optional(),
  backend: BackendConfigSchema,
  system_message: z.string().optional(),
  /** `coordination_mode: decomposition` (MassGen's key): this agent's subtask; given to every agent, no planning call. */
  subtask: z.string().min(1).optional(),
  /** This agent's permission rules, asked before the team's (docs/permissions.md). */
  permissions: PermissionRulesSchema.optional(),
  /** This agent's own skills folders, besides the team's `skills:` (docs/skills.md). */
  skills: AgentSkillsSchema.optional(),
  /** This agent's own hooks, run besides the team's `hooks:` (docs/hooks.md). */
  hooks: HooksConfigSchema.optional(),
});

export const AgentConfigSchema = BaseAgentConfigSchema.extend({
  /** The team of this agent's subagents (MassGen's key), over `subagent_orchestrator` (docs/subagents.md). */
  subagent_agents: z.array(BaseAgentConfigSchema).min(1).optional(),
});

/**
 * Subagents (MassGen's keys, docs/subagents.md): whole massgen runs an agent spawns with
 * `spawn_subagents`; each has its own time limit, never the generic tool timeout.
 */
const subagentCoordinationKeys = {
  enable_subagents: z.boolean().default(false),
  /** Seconds a subagent may run when its task names no limit; clamped by the min and max below. */
  subagent_default_timeout: z.number().positive().default(300),
  subagent_min_timeout: z.number().positive().default(60),
  subagent_max_timeout: z.number().positive().default(1800),
  /** Subagents of one run that may go at once; more are refused with a tool error. */
  subagent_max_concurrent: z.int().positive().default(3),
  /** How deep subagents may nest: 1 lets the run's agents spawn, and their subagents not. */
  max_subagent_depth: z.int().min(0).default(1),
  /** The team a subagent runs with (default: the spawning agent's own backend). */
  subagent_orchestrator: z
    .strictObject({
      enabled: z.boolean().default(true),
      agents: z.array(BaseAgentConfigSchema).min(1),
    })
    .optional(),
};

/** How agents use tools while they coordinate. */
export const CoordinationConfigSchema = z.strictObject({
  /** Tools that change the outside world are not run during coordination; the final presenter runs them. */
  enable_planning_mode: z.boolean().default(false),
  /** Tools (final names, `*` wildcards) that may run during coordination in planning mode. */
  planning_mode_allowed_tools: z.array(z.string().min(1)).default(() => []),
  /** Extra text for the planning-mode instructions agents get. */
  planning_mode_instruction: z.string().optional(),
  /** After the final presentation the winner may ask for another attempt, this many times (MassGen's key). */
  max_orchestration_restarts: z.int().min(0).default(0),
  /** Memories as Markdown files (`memory/*.md`) in each agent's workspace, read and written with file tools (docs/memory.md). */
  enable_memory_filesystem_mode: z.boolean().default(false),
  ...subagentCoordinationKeys,
  /** The checklist gate (`voting_sensitivity: checklist_gated`): criteria, preset, pass mark. */
  ...checklistCoordinationKeys,
  /** Task plans and ask_others (docs/task-plans.md, docs/ask-others.md). */
  ...agentWorkCoordinationKeys,
});

/** A folder of the user's own, visible to every agent. */
export const ContextPathConfigSchema = z.strictObject({
  path: z.string().min(1),
  /** `write`: the final presenter may write here (never during coordination). */
  permission: z.enum(['read', 'write']).default('read'),
  /** Files or folders under `path` (relative to it, or absolute) that are never written. */
  protected_paths: z.array(z.string().min(1)).default(() => []),
  /**
   * `worktree`: each agent works on its own git worktree (a copy outside git) and the winner's changes
   * come back as a diff to review; `isolated`: always a copy; `direct` (default): the presenter writes here.
   */
  write_mode: WriteModeSchema.optional(),
});

/** Answers per agent before it may only vote: enough for a first answer and two real revisions. */
export const DEFAULT_MAX_NEW_ANSWERS_PER_AGENT = 3;

export const OrchestratorConfigSchema = z.strictObject({
  /**
   * Beyond this many accepted answers an agent may only vote. Default 3 (docs/protocol.md says why);
   * an explicit null means unlimited, with a warning at start.
   */
  max_new_answers_per_agent: z.int().positive().nullable().default(DEFAULT_MAX_NEW_ANSWERS_PER_AGENT),
  /** Hard ceiling on coordination turns in one run, over all agents. Default: derived from the team size. */
  max_total_turns: z.int().positive().optional(),
  answer_novelty_requirement: z.enum(['lenient', 'balanced', 'strict']).default('lenient'),
  max_enforcement_retries: z.int().min(0).default(2),
  max_agent_failures: z.int().min(1).default(2),
  on_new_answer: z.enum(['inject', 'restart']).default('inject'),
  final_presentation: z.enum(['present', 'verbatim']).default('present'),
  /** Safety cap on model calls in one agent turn. */
  max_steps_per_turn: z.int().min(1).default(30),
  /** Stop coordination once the run has cost more than this many dollars. null: no budget. */
  max_cost_usd: z.number().positive().nullable().default(null),
  coordination: CoordinationConfigSchema.prefault({}),
  /** The user's own folders, visible to every agent (paths relative to the config file). */
  context_paths: z.array(ContextPathConfigSchema).default(() => []),
  /** Run tool calls without asking. A UI (or a library caller) can hold them for approval when false. */
  auto_approve: z.boolean().default(true),
  /** How high the bar for voting is (MassGen's key): `lenient` votes readily, `strict` only for a flawless answer. */
  voting_sensitivity: z.enum(['lenient', 'balanced', 'strict', 'checklist_gated']).default('lenient'),
  /** `all`: every active agent must vote; `majority`: stop once a strict majority backs one answer. */
  consensus: z.enum(['all', 'majority']).default('all'),
  /** Fraction of the orchestrator timeout after which working agents are asked to wrap up; null: never. */
  wrap_up_at: z.number().gt(0).lt(1).nullable().default(0.8),
  /** Whose answers each agent sees: everyone's, a ring of neighbours, k random peers, or its island. */
  visibility: z.enum(['all', 'ring', 'random_k', 'islands']).default('all'),
  /** Peers seen per agent (`ring`, `random_k`) or agents per island (`islands`). */
  visibility_k: z.int().min(1).default(2),
  /** `vote`: most votes win; `judge`: one agent picks among the candidates; `synthesize`: the winner merges the best parts. */
  selection: z.enum(['vote', 'judge', 'synthesize']).default('vote'),
  /** The agent that judges with `selection: judge` (default: the first agent). */
  judge: z.string().min(1).optional(),
  /** Each agent after the first also reads the question in other words, paraphrased by its own model. */
  paraphrase: z.boolean().default(false),
  /** `auto`: distinct working styles for agents on the same model, so a same-model team does not think alike. */
  personas: z.enum(['auto', 'none']).default('none'),
  /**
   * Testing `max_orchestration_restarts` (MassGen's key): the first attempt's check reads this text as
   * the final answer, so a deliberately poor one shows whether the winner sends the team back.
   */
  debug_final_answer: z.string().min(1).optional(),
  /** Debugging (MassGen's key): no coordination — the first agent answers directly, and that is final. */
  skip_coordination_rounds: z.boolean().default(false),
  /** `final_answer_strategy`, `coordination_mode`, `presenter_agent` (MassGen's keys). */
  ...qualityOrchestratorKeys,
});

export const TimeoutConfigSchema = z.strictObject({
  orchestrator_timeout_seconds: z.number().positive().default(1800),
  agent_turn_timeout_seconds: z.number().positive().default(600),
});

export const UiConfigSchema = z.strictObject({
  display_type: z.enum(['rich_terminal', 'simple', 'silent']).default('rich_terminal'),
  logging_enabled: z.boolean().default(true),
});

/** The raw top level, before `agent:` is folded into `agents:`. */
const RawConfigSchema = z.strictObject({
  agents: z.array(AgentConfigSchema).min(1, { error: 'must list at least one agent' }).optional(),
  agent: AgentConfigSchema.optional(),
  // prefault (not default) so the empty object is parsed and its own defaults get filled in.
  orchestrator: OrchestratorConfigSchema.prefault({}),
  timeout_settings: TimeoutConfigSchema.prefault({}),
  ui: UiConfigSchema.prefault({}),
  /** Prices per model name (dollars per million tokens), over the built-in table. */
  pricing: z.record(z.string(), PriceConfigSchema).default(() => ({})),
  /** Client-side rate limits per model name. */
  rate_limits: z.record(z.string(), RateLimitConfigSchema).default(() => ({})),
  /**
   * Files that go with every question of this config (docs/multimodal.md): paths relative to the config
   * file, or http(s) URLs fetched at start. Text is inlined into the question; images, audio, video and
   * PDFs go to each agent whose model takes them.
   */
  attachments: z.array(z.string().min(1)).default(() => []),
  /** The Python interpreter for Python custom tools and Python agents (default: python3 from PATH). */
  python: z.string().min(1).optional(),
  /**
   * Your own agent adapters by name (used as `type: external, framework: NAME`): a `.ts`/`.js` module
   * exporting `createAgent`, or a Python module (`pkg.mod` or a `.py` file) with `create(config, module)`.
   */
  adapters: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), z.string().min(1)).default(() => ({})),
  /** Team-wide permission rules over tool calls, after each agent's own (docs/permissions.md). */
  permissions: PermissionRulesSchema.default(() => []),
  /** Commands around tool calls and the run, in Claude Code's format (docs/hooks.md). */
  hooks: HooksConfigSchema.optional(),
  /** AGENTS.md / CLAUDE.md of the run's folder and each context path, given to agents with a workspace (docs/hooks.md). */
  project_instructions: z.boolean().default(true),
  /** Agent Skills folders for every agent, or `{ paths, evolve, prompt_budget_chars }` (docs/skills.md). */
  skills: SkillsConfigSchema.optional(),
  /** What the team remembers across runs and sessions (docs/memory.md). */
  memory: MemoryConfigSchema.prefault({}),
  /** Tools every agent gets besides its own: `computer` (a virtual desktop, docs/computer-use.md), `browser` (docs/browser.md). */
  tools: z
    .strictObject({
      computer: ComputerConfigSchema.optional(),
      /** A real Chromium per agent and the `browser_*` tools (docs/browser.md). */
      browser: BrowserConfigSchema.optional(),
    })
    .prefault({}),
});

export type BackendConfig = z.output<typeof BackendConfigSchema>;
/** An agent after normalisation: `id` is always present. */
export type AgentConfig = Omit<z.output<typeof AgentConfigSchema>, 'id'> & { id: string };
export type OrchestratorConfig = z.output<typeof OrchestratorConfigSchema>;
export type McpServerConfig = z.output<typeof McpServerConfigSchema>;
export type CustomToolConfig = z.output<typeof CustomToolConfigSchema>;
export type ContextPathConfig = z.output<typeof ContextPathConfigSchema>;
export type TimeoutConfig = z.output<typeof TimeoutConfigSchema>;
export type UiConfig = z.output<typeof UiConfigSchema>;
export type PriceConfig = z.output<typeof PriceConfigSchema>;
export type RateLimitConfig = z.output<typeof RateLimitConfigSchema>;

/** The id an agent entry ends up with; tolerant of invalid entries so it can run alongside other issues. */
const effectiveId = (entry: unknown, index: number): unknown =>
  isRecord(entry) && entry.id !== undefined ? entry.id : `agent_${index + 1}`;

/** ` "alpha"` for an id that looks like a name; nothing for one that does not (it may be file content). */
const nameOf = (id: unknown): string => (isShownName(String(id)) ? ` "${String(id)}"` : '');

/**
 * Problems zod cannot see field by field: `agent:` vs `agents:` and duplicate ids (after defaulting).
 * Tolerant of any input, because it also runs when other keys are invalid; exported so the parser can
 * run it even when zod skips refinements after an aborting issue (such as a non-integer).
 */
export function agentListProblems(value: unknown): { path: (string | number)[]; message: string }[] {
  if (!isRecord(value)) return [];
  const problems: { path: (string | number)[]; message: string }[] = [];
  const hasList = value.agents !== undefined;
  const hasSingle = value.agent !== undefined;
  if (hasList && hasSingle) {
    problems.push({
      path: ['agent'],
      message: 'use either "agent:" (one agent) or "agents:" (a list), not both',
    });
  } else if (!hasList && !hasSingle) {
    problems.push({ path: [], message: 'no agents: add an "agents:" list or a single "agent:"' });
  }
  if (!Array.isArray(value.agents)) return problems;
  const firstIndexById = new Map<unknown, number>();
  value.agents.forEach((entry: unknown, index) => {
    const id = effectiveId(entry, index);
    const first = firstIndexById.get(id);
    if (first === undefined) {
      firstIndexById.set(id, index);
      return;
    }
    problems.push({
      path: ['agents', index, 'id'],
      message: `duplicate agent id${nameOf(id)} (also used by agents[${first}])`,
    });
  });
  for (const key of ['judge', 'presenter_agent'] as const) {
    const named = isRecord(value.orchestrator) ? value.orchestrator[key] : undefined;
    if (typeof named === 'string' && !firstIndexById.has(named)) {
      const ids = [...firstIndexById.keys()].map(String).filter(isShownName);
      problems.push({
        path: ['orchestrator', key],
        message: `${key === 'judge' ? 'judge' : 'presenter_agent'}${nameOf(named)} is not an agent of this config; agents: ${ids.join(', ')}`,
      });
    }
  }
  return problems;
}

/**
 * The config file as users write it. Parsing yields the normalised {@link MassGenConfig}: `agent:` is
 * folded into `agents:`, every agent has an id and every default is filled in.
 */
export const MassGenConfigSchema = RawConfigSchema.superRefine(
  (value: unknown, ctx) => {
    for (const problem of agentListProblems(value)) ctx.addIssue({ code: 'custom', ...problem });
  },
  // Run even when other keys are invalid so every problem is reported in one go.
  { when: () => true },
).transform(({ agent, agents, ...rest }) => {
  const list = agents ?? (agent === undefined ? [] : [agent]);
  const normalised = list.map((entry, index): AgentConfig => ({
    ...entry,
    id: entry.id ?? `agent_${index + 1}`,
  }));
  return { agents: normalised as [AgentConfig, ...AgentConfig[]], ...rest };
});

/** The normalised, defaults-filled, deeply frozen configuration. */
export type MassGenConfig = z.output<typeof MassGenConfigSchema>;
/** The config as written in a file (before defaults and normalisation). */
export type MassGenConfigInput = z.input<typeof MassGenConfigSchema>;
