import type { AgentConfig, ConfigDiagnostic, MassGenConfig } from '../config/index.js';
import type { AgentSandbox } from '../tools/agent-sandbox.js';
import type { ToolsByAgent } from '../tools/define-tool.js';
import type { RuleList } from '../tools/permissions/index.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import type { Backend, BackendSettings } from '../types/backend.js';
import type { Env } from '../types/env.js';
import type { RunEvent, RunEventOf, RunWarning } from '../types/events.js';
import type { RunResult } from '../types/run-result.js';
import type { ChildLauncher } from '../types/subagent-launch.js';
import type { StopHook } from '../types/stop-hook.js';
import type { ToolHooks } from '../types/tool.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';

/**
 * A run capability — memory, Agent Skills, the browser, … — in the spirit of a Vite or Rollup plugin
 * and Fastify's `register`: a small descriptor the app keeps in a list (`app/capabilities.ts`), and a
 * module it imports only for a run that uses it. The descriptor's module must stay cheap to import
 * (types and config predicates only): every run imports every descriptor.
 *
 * @example
 * ```ts
 * import { runMassGen, type Capability } from 'massgen';
 * import { defineTool } from 'massgen/tools';
 *
 * const clock: Capability = {
 *   name: 'clock',
 *   uses: () => true,
 *   load: async () => ({
 *     prepare: async (run) => ({
 *       tools: Object.fromEntries(run.config.agents.map((a) => [a.id, [timeTool]])),
 *       prompt: (_id, message) => withPromptSection(message, 'You can ask `now` for the time.'),
 *     }),
 *   }),
 * };
 * await runMassGen({ config: 'team.yaml', question: 'What time is it?', capabilities: [clock] });
 * ```
 */
export interface Capability {
  /** Short and unique, kebab-case: named in errors. */
  readonly name: string;
  /** Whether this run needs it. Only then is {@link load} called and its module imported. */
  uses(config: MassGenConfig, options: CapabilityOptions): boolean;
  /** Imports the part that does the work (with `import()`, so a run without it never loads it). */
  load(): Promise<CapabilityModule>;
  /**
   * Imports its checks for `massgen --validate` (`validateConfig` loads them with itself, never a run):
   * the problems of a config that uses it, each at the config key it is about.
   */
  checks?(): Promise<CapabilityChecks>;
}

/** What {@link Capability.load} resolves to. */
export interface CapabilityModule {
  /**
   * Sets the capability up for one run — opens what it needs, loads what the config names — and says
   * what it adds. Called in list order, after the run's workspaces exist and before its agents are
   * built. Throwing a `ConfigError` stops the run before it starts (the parts prepared so far are
   * closed); anything it started must be stopped by its own `close`, or before it throws.
   */
  prepare(run: RunContext): Promise<CapabilityParts>;
}

/** The `--validate` checks of a capability, for a config that uses it. */
export type CapabilityChecks = (config: MassGenConfig, place: ConfigPlace) => CapabilityProblems;

/** Where a config being validated is read from, and the environment it would run in. */
export interface ConfigPlace {
  /** The config file's folder: relative paths in it resolve here first. */
  baseDir: string;
  /** The working folder (MassGen's configs name paths from there). */
  projectDir: string;
  env: Env;
}

/** Errors make a config invalid; warnings are facts of this machine or environment. */
export interface CapabilityProblems {
  errors?: readonly ConfigDiagnostic[];
  warnings?: readonly ConfigDiagnostic[];
}

/**
 * The run's options a capability may read: a structural part of `MassGenOptions`, so the app hands
 * its options over as they are.
 */
export interface CapabilityOptions {
  /** Agents given in code: none is built from the config, so there are no agent tools to add. */
  agents?: readonly unknown[] | undefined;
  /** Tools given in code, by agent id. */
  tools?: ToolsByAgent | undefined;
  /** Step mode: one agent's one action against a recorded session, not a run to learn from. */
  step?: unknown;
  /** Earlier turns of a session. */
  history?: readonly unknown[] | undefined;
  /** The previous turn's winning workspace in a session (what it left carries over). */
  previousWorkspace?: string | null | undefined;
  /** The working folder as given (the process's when absent). */
  cwd?: string | undefined;
  /** The previous turn's log folder in a session (what its subagents left carries over). */
  previousLogDir?: string | null | undefined;
  /** Starts subagents elsewhere (a queue worker's jobs) instead of in this process. */
  subagentLauncher?: ChildLauncher | undefined;
}

/** What {@link CapabilityModule.prepare} is given: the run as the app has assembled it so far. */
export interface RunContext {
  readonly config: MassGenConfig;
  readonly options: CapabilityOptions;
  readonly question: string;
  readonly env: Env;
  /** The working folder: `.env` and `.massgen/` live here. */
  readonly cwd: string;
  /** Relative paths in the config resolve here (the config file's folder). */
  readonly baseDir: string;
  /**
   * Whether code and skills the config names may come from `cwd` when they are not beside the config
   * (docs/security.md, "Project folders"); false for a working folder the user has not trusted.
   */
  readonly projectTrusted: boolean;
  /** Whether a person can answer approval questions while the run goes. */
  readonly interactive: boolean;
  /** Each config agent's sandbox, by agent id (none with agents given in code, or without workspaces). */
  readonly sandboxes: ReadonlyMap<string, AgentSandbox>;
  /** The run's context paths (`orchestrator.context_paths`, `@path` in the question), resolved. */
  readonly contextPaths: readonly string[];
  /** The `.env` files the run's environment came from: kept out of every sandbox. */
  readonly envFiles: readonly string[];
  /** Masks every secret the run knows: for anything a capability writes or keeps. */
  readonly scrubber: SecretScrubber;
  readonly signal?: AbortSignal | undefined;
  /**
   * Notes on how the config's paths were read (`resolveConfigPath`): said as warnings when the run
   * starts, and named in a config error about a path left out as untrusted.
   */
  readonly notes: string[];
}

/** One agent built from the config, as its tools are made. */
export interface AgentPlace {
  readonly agent: AgentConfig;
  /** Its position in `config.agents`. */
  readonly index: number;
  /** Its sandbox as the tools made so far see it; undefined without a workspace. */
  readonly sandbox: AgentSandbox | undefined;
}

/** What a capability gives one agent built from the config. */
export interface AgentEquipment {
  /** Offered ahead of the agent's own tools (its file tools, commands and custom tools). */
  readonly first?: readonly ToolProvider[];
  /** Offered after the agent's custom tools and before its MCP servers. */
  readonly providers?: readonly ToolProvider[];
  /** The sandbox every tool made after this one sees (Agent Skills show their folders in it). */
  readonly sandbox?: AgentSandbox;
}

/** How a run ended, for {@link CapabilityParts.finish}. */
export interface RunEnd {
  /** The run's last event; null when it was stopped before it finished. */
  readonly finished: RunEventOf<'run.finished'> | null;
  /** The winner's workspace as delivered (next to its logged answer), or null. */
  readonly workspaceDir: string | null;
  /** An agent's workspace folder (it outlives the run), or null. */
  workspaceOf(agentId: string): string | null;
  /** The run's agents, in order. */
  readonly agents: readonly { readonly id: string; readonly backend: Backend }[];
}

/**
 * What a capability adds to a run. Each kind is merged in list order, so the agents' tools and
 * prompts, the run's warnings and its events keep one order from run to run.
 */
export interface CapabilityParts {
  /** Tools per agent id: they join the agent's custom tools (after the config's), checked like them. */
  readonly tools?: ToolsByAgent;
  /** Tool providers for each agent built from the config, asked as its tools are made. */
  equip?(place: AgentPlace): AgentEquipment | undefined;
  /**
   * The agent's system message with this capability's section (see {@link withPromptSection}):
   * called for every agent, in list order, from the config's `system_message` on.
   */
  prompt?(agentId: string, systemMessage: string | undefined): string | undefined;
  /** Agents from other frameworks this capability loaded, by agent id (`backend.type: external`, `ag2`). */
  readonly externals?: ReadonlyMap<string, NonNullable<BackendSettings['external']>>;
  /**
   * Said when the run starts (`run.warning`), after the app's own (config notes, workspaces) and before
   * its backends' and the attachments' checks.
   */
  readonly warnings?: readonly RunWarning[];
  /** As a Vite hook's `order`: `pre` says {@link warnings} before the config's notes instead. */
  readonly warningsOrder?: 'pre';
  /** Permission rules asked before every agent's and the team's (docs/permissions.md). */
  readonly rules?: RuleList;
  /**
   * The question as the agents get it, with what this capability adds (called in list order, from
   * the question as asked, attachments' notes included).
   */
  question?(question: string): string;
  /**
   * Asked around every ordinary tool call of every agent (PreToolUse, PostToolUse): at most one
   * capability of a run gives them.
   */
  readonly toolHooks?: ToolHooks;
  /**
   * Asked each time the run would end: a block sends the team back to work with its reason as the
   * user's follow-up. At most one capability of a run gives it.
   */
  readonly stopHook?: StopHook;
  /** Sees every event of the run, in order. */
  onEvent?(event: RunEvent): void;
  /** The run's log folder, once it exists (null with logging off): for files kept beside the logs. */
  logFolder?(dir: string | null): void;
  /** After the run's end, once its workspace is delivered: what it adds to the result (never throws). */
  finish?(end: RunEnd): Promise<Partial<RunResult> | void>;
  /** Stops what it started; awaited on every way a run ends, including a failed start. */
  close?(): Promise<void>;
}

/** `message` with `section` after it, a blank line between: the usual way to add to a system prompt. */
export function withPromptSection(message: string | undefined, section: string): string {
  return message ? `${message}\n\n${section}` : section;
}
