import path from 'node:path';
import { loadConfigFile } from '../config/index.js';
import { stepStanding, type StepRecord, type StepStanding } from '../coordination/index.js';
import { ConfigError, ExitCode } from '../types/errors.js';
import type { ErrorInfo, RunEvent, RunStatus } from '../types/events.js';
import type { Env } from './build-agents.js';
import { prepareRun } from './run-massgen.js';
import {
  readStepSession,
  stepRecordOf,
  updateStepSession,
  STEP_SESSION_VERSION,
  type StepAction,
  type StepSession,
} from './step-session.js';

/** Options of {@link runStep}. */
export interface StepOptions {
  /** The session folder: `session.json` and the steps' `logs/`. Created by the first step. */
  sessionDir: string;
  /** The config file holding the acting agent (resolved: a path, not `@examples/…`). */
  config: string;
  /** The acting agent's id in the config; may be left out when the config has one agent. */
  agentId?: string;
  /** Required for the first step of a session; later steps may repeat it (it must match). */
  question?: string;
  /** `turn`: an answer or a vote; `present`: the winner's final answer. */
  action: 'turn' | 'present';
  cwd: string;
  env: Env;
  signal?: AbortSignal;
  /** Write the step's log folder under `<sessionDir>/logs` (default: the config's `ui.logging_enabled`). */
  logging?: boolean;
  onEvent?: (event: RunEvent) => void;
}

/** The action a step took, as `massgen step` prints it. */
export type StepActionOutput =
  | { type: 'new_answer'; label: string; content: string }
  | { type: 'vote'; target: string; target_label: string; reason: string }
  | { type: 'final_answer'; content: string };

/** Where the session stands, as `massgen step` prints it. */
export interface StandingOutput {
  consensus: boolean;
  winner: string | null;
  winner_label: string | null;
  tallies: Record<string, number>;
  votes: Record<string, { target: string; target_label: string }>;
  answers: Record<string, number>;
  /** What an outside loop does next: `step` agents, `present` (with `winner`), or `done`. */
  next: 'step' | 'present' | 'done';
}

/** What `massgen step` prints: one JSON object. */
export interface StepOutput {
  version: typeof STEP_SESSION_VERSION;
  agent: string;
  /** `skipped`: nothing to do for this agent now (see `note`); no model was called. */
  status: RunStatus | 'skipped';
  action: StepActionOutput | null;
  /** False for a vote cast on answers that changed while the agent thought: it is not recorded. */
  counted: boolean;
  note?: string;
  standing: StandingOutput;
  log_dir: string | null;
  exit_code: number;
  error?: ErrorInfo;
}

function standingOutput(standing: StepStanding, session: StepSession | null): StandingOutput {
  const done = session?.actions.some((a) => a.type === 'final_answer') ?? false;
  return {
    consensus: standing.consensus,
    winner: standing.winnerId,
    winner_label: standing.winnerLabel,
    tallies: standing.tallies,
    votes: Object.fromEntries(
      Object.entries(standing.votes).map(([voter, v]) => [
        voter,
        { target: v.targetAgentId, target_label: v.targetLabel },
      ]),
    ),
    answers: Object.fromEntries(standing.agents.map((a) => [a.agentId, a.answers])),
    next: done ? 'done' : standing.consensus ? 'present' : 'step',
  };
}

/** The standing of the session in `dir` (no model is called). */
export function readStepStanding(dir: string, consensus: 'all' | 'majority' = 'all'): StandingOutput | null {
  const session = readStepSession(dir);
  if (!session) return null;
  return standingOutput(stepStanding(session.agents, stepRecordOf(session), consensus), session);
}

/** The acting agent's action, from the step's events. */
function actionOf(events: readonly RunEvent[], agentId: string): StepActionOutput | null {
  for (const e of events) {
    if (e.type === 'answer.submitted' && e.agentId === agentId)
      return { type: 'new_answer', label: e.label, content: e.content };
    if (e.type === 'vote.cast' && e.agentId === agentId && e.counted)
      return { type: 'vote', target: e.targetAgentId, target_label: e.targetLabel, reason: e.reason };
    if (e.type === 'presentation.finished' && e.agentId === agentId)
      return { type: 'final_answer', content: e.content };
  }
  return null;
}

/** The roster with `more` appended where missing, in order. */
const withAgents = (roster: readonly string[], more: readonly string[]) => [
  ...roster,
  ...more.filter((id, i) => !roster.includes(id) && more.indexOf(id) === i),
];

/**
 * One step of a step-mode session: the agent takes one action (or presents), the session file records
 * it, and the result says where the session stands. Never throws for a failed step (see `status`);
 * throws a `ConfigError` for bad input (a config, an agent, a session of another question or version).
 */
export async function runStep(options: StepOptions): Promise<StepOutput> {
  const dir = path.resolve(options.cwd, options.sessionDir);
  const session = readStepSession(dir);
  const question = session?.question ?? options.question?.trim();
  if (!question)
    throw new ConfigError('the first step of a session needs the question', {
      hint: 'massgen step --session-dir DIR --config FILE --agent ID "your question"',
    });
  if (session && options.question !== undefined && options.question.trim() !== session.question)
    throw new ConfigError(`${dir} is a session about another question: "${session.question.slice(0, 200)}"`, {
      hint: 'leave the question out to continue it, or start a new session in another folder',
    });
  const config = loadConfigFile(options.config, { env: options.env, cwd: options.cwd });
  const ids = config.agents.map((a) => a.id);
  const agentId = options.agentId ?? (ids.length === 1 ? ids[0] : undefined);
  if (agentId === undefined)
    throw new ConfigError(
      `${options.config} has several agents: say which acts with --agent (${ids.join(', ')})`,
    );
  if (!ids.includes(agentId))
    throw new ConfigError(`${options.config} has no agent "${agentId}" (it has: ${ids.join(', ')})`);
  const consensus = config.orchestrator.consensus;
  // A team config fixes the order (and so the anonymous ids) as a normal run of it would.
  const roster = withAgents(session?.agents ?? (ids.length > 1 ? ids : []), [agentId]);
  const record: StepRecord[] = stepRecordOf(session);
  const before = stepStanding(roster, record, consensus);
  const output = (fields: Partial<StepOutput> & Pick<StepOutput, 'status' | 'exit_code'>): StepOutput => ({
    version: STEP_SESSION_VERSION,
    agent: agentId,
    action: null,
    counted: false,
    standing: standingOutput(before, session),
    log_dir: null,
    ...fields,
  });

  if (options.action === 'turn') {
    const vote = before.votes[agentId];
    if (before.consensus || vote) {
      return output({
        status: 'skipped',
        exit_code: ExitCode.success,
        note: before.consensus
          ? `the session has reached consensus: present with --present --agent ${before.winnerId}`
          : `${agentId} holds a vote for ${vote?.targetLabel} and no answer has changed since`,
      });
    }
  } else if (before.winnerId !== agentId) {
    throw new ConfigError(
      `${agentId} cannot present: ${before.winnerId === null ? 'there is no answer yet' : `the winner is ${before.winnerId}`}`,
      { hint: 'present with the agent the standing names as winner' },
    );
  }

  const events: RunEvent[] = [];
  const prepared = await prepareRun({
    question,
    config: options.config,
    cwd: options.cwd,
    env: options.env,
    logRoot: path.join(dir, 'logs'),
    step: { agentId, roster, record, action: options.action },
    ...(options.logging === undefined ? {} : { logging: options.logging }),
    ...(options.signal ? { signal: options.signal } : {}),
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
  });
  for await (const _event of prepared.stream()) {
    // Collected by onEvent.
  }
  const result = await prepared.result;
  const action = actionOf(events, agentId);
  if (result.status !== 'completed' || action === null) {
    return output({
      status: result.status === 'completed' ? 'failed' : result.status,
      exit_code: result.exitCode === ExitCode.success ? ExitCode.runFailed : result.exitCode,
      log_dir: result.logDir,
      error: result.error ?? { code: 'run_failed', message: `${agentId} took no action` },
    });
  }

  // Recorded under the lock, against the session as it is now (another step may have finished meanwhile).
  let counted = true;
  let recorded: StepActionOutput = action;
  const written = await updateStepSession(dir, (current) => {
    if (current && current.question !== question)
      throw new ConfigError(`${dir} was started for another question while this step ran`);
    const agents = withAgents(current?.agents ?? [], roster);
    const actions = [...(current?.actions ?? [])];
    const now = new Date().toISOString();
    const seenAnswers = (session?.actions ?? []).filter((a) => a.type === 'new_answer').length;
    const answersNow = actions.filter((a) => a.type === 'new_answer').length;
    let entry: StepAction | null;
    if (action.type === 'vote') {
      // The vote was for the answers the agent saw: when one changed since, it does not count.
      counted = answersNow === seenAnswers;
      entry = counted ? { ...action, agent: agentId, at: now } : null;
    } else if (action.type === 'new_answer') {
      const own = actions.filter((a) => a.type === 'new_answer' && a.agent === agentId).length;
      recorded = { ...action, label: `agent${agents.indexOf(agentId) + 1}.${own + 1}` };
      entry = { ...recorded, agent: agentId, at: now };
    } else {
      entry = { ...action, agent: agentId, at: now };
    }
    return {
      ...current,
      version: STEP_SESSION_VERSION,
      question,
      agents,
      actions: entry ? [...actions, entry] : actions,
    };
  });
  return output({
    status: 'completed',
    exit_code: ExitCode.success,
    action: recorded,
    counted,
    ...(counted ? {} : { note: 'an answer changed while the agent was voting: step it again' }),
    standing: standingOutput(stepStanding(written.agents, stepRecordOf(written), consensus), written),
    log_dir: result.logDir,
  });
}
