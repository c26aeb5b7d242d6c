/**
 * The optional tools' modules — Agent Skills, the browser, the virtual desktop, media generation —
 * imported only for a
 * run whose config uses them: each module loaded is start-up time and memory for every run, and a
 * plain run has none of these (test/e2e/lazy-imports.test.ts, `npm run bench`). `prepareRun` loads
 * them before it builds the agents, which then stays synchronous.
 */
import type { MassGenConfig } from '../config/index.js';
import type { skillsPrompt } from '../skills/index.js';
import type { RunSkills } from './agent-skills.js';
import type { browserToolProvider } from './browser-provider.js';
import type { computerToolProvider } from './computer-provider.js';
import type { mediaGenerationToolProvider } from './media-generation-provider.js';
import type { skillsToolProvider } from './skills-tools.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import type { AskOthersDesk, PeerModel } from '../ask-others/index.js';

/** What {@link loadToolFeatures} imported: only the parts the run's config uses. */
export interface ToolFeatures {
  skills?: { prompt: typeof skillsPrompt; toolProvider: typeof skillsToolProvider };
  browser?: typeof browserToolProvider;
  computer?: typeof computerToolProvider;
  mediaGeneration?: typeof mediaGenerationToolProvider;
  /** `enable_agent_task_planning`: the planning tools of an agent with this workspace (docs/task-plans.md). */
  taskPlan?: (workspace: string | null) => ToolProvider;
  /** `coordination.broadcast`: the run's `ask_others` desk (docs/ask-others.md). */
  askOthers?: AskOthersDesk;
}

/** Whether any agent asks for media generation (MassGen's `enable_*_generation` keys). */
export function configUsesMediaGeneration(config: MassGenConfig): boolean {
  return config.agents.some(requestsMediaGeneration);
}

/** Whether this agent asks for media generation. */
export function requestsMediaGeneration({ backend: b }: MassGenConfig['agents'][number]): boolean {
  return Boolean(b.enable_image_generation || b.enable_audio_generation || b.enable_video_generation);
}

/** Whether the config names any skills folder (else `loadRunSkills` has nothing to load). */
export function configUsesSkills(config: MassGenConfig): boolean {
  return (config.skills?.paths ?? []).length > 0 || config.agents.some((a) => (a.skills ?? []).length > 0);
}

/** Imports the modules of the optional tools this run uses (`skills`: what `loadRunSkills` found). */
export async function loadToolFeatures(
  config: MassGenConfig,
  skills: RunSkills | null,
  /** The previous turn's result in a session (its task plans carry over). */
  previousWorkspace: string | null = null,
  /** The run's agents once built: a peer answers `ask_others` with its own model. */
  peers: () => readonly PeerModel[] = () => [],
): Promise<ToolFeatures> {
  const coordination = config.orchestrator.coordination;
  const [skillsModules, browser, computer, media, taskPlan, askOthers] = await Promise.all([
    skills ? Promise.all([import('../skills/index.js'), import('./skills-tools.js')]) : undefined,
    config.tools.browser ? import('./browser-provider.js') : undefined,
    config.tools.computer ? import('./computer-provider.js') : undefined,
    configUsesMediaGeneration(config) ? import('./media-generation-provider.js') : undefined,
    coordination.enable_agent_task_planning ? import('../task-plan/index.js') : undefined,
    coordination.broadcast ? import('../ask-others/index.js') : undefined,
  ]);
  return {
    ...(skillsModules
      ? {
          skills: {
            prompt: skillsModules[0].skillsPrompt,
            toolProvider: skillsModules[1].skillsToolProvider,
          },
        }
      : {}),
    ...(browser ? { browser: browser.browserToolProvider } : {}),
    ...(computer ? { computer: computer.computerToolProvider } : {}),
    ...(media ? { mediaGeneration: media.mediaGenerationToolProvider } : {}),
    ...(taskPlan
      ? {
          taskPlan: (workspace: string | null) =>
            taskPlan.taskPlanToolProvider({
              workspace,
              markdown: coordination.task_planning_filesystem_mode,
              maxTasks: coordination.max_tasks_per_plan,
              previousWorkspace,
            }),
        }
      : {}),
    ...(askOthers && coordination.broadcast
      ? {
          askOthers: new askOthers.AskOthersDesk({
            mode: coordination.broadcast,
            timeoutMs: coordination.broadcast_timeout * 1000,
            maxPerAgent: coordination.max_broadcasts_per_agent,
            agentIds: config.agents.map((a) => a.id),
            respond: askOthers.peerResponder(peers),
          }),
        }
      : {}),
  };
}

/** A feature's module that must have been loaded: a caller that builds agents itself passes `features`. */
export function loadedFeature<T>(feature: T | undefined, name: keyof ToolFeatures): T {
  if (feature === undefined)
    throw new Error(`the ${name} tools' module is not loaded: pass \`features\` from loadToolFeatures()`);
  return feature;
}
