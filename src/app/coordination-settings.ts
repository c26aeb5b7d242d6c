import type { MassGenConfig } from '../config/index.js';
import type { CoordinationSettings } from '../coordination/index.js';

/** Maps the config's snake_case orchestrator and timeout sections to the engine's settings. */
export function coordinationSettings(
  config: MassGenConfig,
  overrides: { orchestratorTimeoutSeconds?: number } = {},
): CoordinationSettings {
  const o = config.orchestrator;
  const t = config.timeout_settings;
  return {
    maxNewAnswersPerAgent: o.max_new_answers_per_agent ?? null,
    answerNoveltyRequirement: o.answer_novelty_requirement,
    maxEnforcementRetries: o.max_enforcement_retries,
    maxAgentFailures: o.max_agent_failures,
    onNewAnswer: o.on_new_answer,
    finalPresentation: o.final_presentation,
    maxStepsPerTurn: o.max_steps_per_turn,
    maxTotalTurns: o.max_total_turns ?? null,
    agentTurnTimeoutMs: t.agent_turn_timeout_seconds * 1000,
    orchestratorTimeoutMs: (overrides.orchestratorTimeoutSeconds ?? t.orchestrator_timeout_seconds) * 1000,
    maxCostUsd: o.max_cost_usd ?? null,
    planningMode: o.coordination.enable_planning_mode,
    planningModeAllowedTools: [...o.coordination.planning_mode_allowed_tools],
    planningModeInstruction: o.coordination.planning_mode_instruction ?? null,
    votingSensitivity: o.voting_sensitivity,
    consensus: o.consensus,
    wrapUpAt: o.wrap_up_at,
    visibility: o.visibility,
    visibilityK: o.visibility_k,
    selection: o.selection,
    judgeAgentId: o.judge ?? null,
    maxOrchestrationRestarts: o.coordination.max_orchestration_restarts,
    paraphrase: o.paraphrase,
    personas: o.personas,
  };
}
