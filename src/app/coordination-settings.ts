import { loadEvalCriteriaFile, type MassGenConfig } from '../config/index.js';
import { inlineTier } from '../config/quality-schema.js';
import type { CoordinationSettings } from '../coordination/index.js';
import { defaultChecklistSettings, type CriteriaInput } from '../coordination/quality/criteria.js';

/** `--eval-criteria FILE` as the engine takes it (throws a config error naming file:line). */
export function loadEvalCriteria(file: string, cwd: string): CriteriaInput {
  const written = loadEvalCriteriaFile(file, cwd);
  return {
    source: 'file',
    aspiration: written.aspiration,
    criteria: written.criteria.map((c) => ({ text: c.text, tier: c.tier, antiPatterns: c.anti_patterns })),
  };
}

/**
 * The checklist's explicit criteria: the config's `checklist_criteria_inline` first, then the
 * `--eval-criteria` file; null leaves the preset (or generation from the question).
 */
function explicitCriteria(config: MassGenConfig, fromFile: CriteriaInput | undefined): CriteriaInput | null {
  const inline = config.orchestrator.coordination.checklist_criteria_inline;
  if (inline !== undefined)
    return {
      source: 'config',
      aspiration: null,
      criteria: inline.map((c) => ({
        text: c.verify_by ? `${c.text} (verify by: ${c.verify_by})` : c.text,
        tier: inlineTier(c),
        antiPatterns: c.anti_patterns,
      })),
    };
  return fromFile ?? null;
}

/** Maps the config's snake_case orchestrator and timeout sections to the engine's settings. */
export function coordinationSettings(
  config: MassGenConfig,
  overrides: { orchestratorTimeoutSeconds?: number; evalCriteria?: CriteriaInput } = {},
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
    debugFinalAnswer: o.debug_final_answer ?? null,
    skipCoordinationRounds: o.skip_coordination_rounds,
    paraphrase: o.paraphrase,
    personas: o.personas,
    finalAnswerStrategy: o.final_answer_strategy ?? null,
    coordinationMode: o.coordination_mode ?? 'voting',
    presenterAgentId: o.presenter_agent ?? null,
    checklist: {
      criteria: explicitCriteria(config, overrides.evalCriteria),
      preset: o.coordination.checklist_criteria_preset ?? null,
      threshold: o.coordination.checklist_threshold ?? defaultChecklistSettings.threshold,
    },
  };
}
