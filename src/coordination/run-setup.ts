import { paraphraseQuestion } from './diversity.js';
import { classifyTools } from './planning.js';
import type { PlanningPolicy } from './planning-policy.js';
import type { DecompositionPlan } from './quality/decomposition-plan.js';
import type { QualityBook } from './quality/quality-book.js';
import type { RunContext, TurnPolicyPicker } from './run-context.js';
import { startTools } from './run-resources.js';

/** The parts of a run its setup fills in, before the first turn. */
export interface SetUpRun extends RunContext {
  planning: PlanningPolicy | null;
  quality: QualityBook | null;
  decomposition: DecompositionPlan | null;
  turnPolicy: TurnPolicyPicker | undefined;
}

/** A team coordinates; one agent, or `skip_coordination_rounds`, answers directly. */
export function coordinates(run: Pick<RunContext, 'state' | 'settings'>): boolean {
  return run.state.agents.length > 1 && !run.settings.skipCoordinationRounds;
}

/**
 * What a run does before its first turn: starts the agents' tools; a team that coordinates then has
 * its tools classified (planning mode), the question paraphrased (`paraphrase`), and its quality loop
 * (decomposition or the checklist gate) set up — whose modules load only for a run that has one.
 * Returns the paraphrases, one per agent (null: the question as asked).
 */
export async function setUpRun(
  run: SetUpRun,
  signal: AbortSignal,
  step: boolean,
): Promise<{ paraphrases: readonly (string | null)[] }> {
  await startTools(run, signal);
  const coordinating = coordinates(run);
  if (run.settings.planningMode && coordinating) run.planning = await classifyTools(run, signal);
  const paraphrases =
    run.settings.paraphrase && !step && coordinating ? await paraphraseQuestion(run, signal) : [];
  const wantsQualityLoop =
    run.settings.coordinationMode === 'decomposition' || run.settings.votingSensitivity === 'checklist_gated';
  if (coordinating && !step && wantsQualityLoop) {
    const { setUpQualityLoop } = await import('./quality/quality-setup.js');
    const qualityLoop = await setUpQualityLoop(run, signal);
    run.decomposition = qualityLoop.decomposition;
    run.quality = qualityLoop.quality;
    run.turnPolicy = qualityLoop.turnPolicy;
  }
  return { paraphrases };
}
