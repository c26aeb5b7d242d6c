import type { CoordinationEndReason, ErrorInfo, RunStatus } from '../types/events.js';
import {
  currentTallies,
  totalCost,
  totalUsage,
  type AgentStatus,
  type RunPhase,
  type RunState,
} from '../types/run-state.js';
import { roundCost, toSnakeUsage, type SnakeUsage } from './snake-usage.js';

/** One agent's entry in `status.json`. */
export interface StatusAgentEntry {
  anonymous_id: string;
  backend: string;
  model: string;
  status: AgentStatus;
  answer_count: number;
  latest_label: string | null;
  /** The counted vote the agent holds now; `target` is the real agent id. */
  vote: { target: string; label: string; reason: string } | null;
  consecutive_failures: number;
  total_failures: number;
  dropped_reason: string | null;
  usage: SnakeUsage;
  /** Dollars; null when no price is known for the model. */
  cost_usd: number | null;
}

/** The shape of `status.json`, rewritten while the run goes on so scripts can poll it. */
export interface StatusDocument {
  run_id: string | null;
  question: string;
  phase: RunPhase;
  started_at: string;
  /** When this snapshot was taken. */
  updated_at: string;
  elapsed_seconds: number;
  agents: Record<string, StatusAgentEntry>;
  coordination: {
    end_reason: CoordinationEndReason | null;
    winner: string | null;
    winner_label: string | null;
    /** Counted votes per agent id: live during coordination, final once it ended. */
    tallies: Record<string, number>;
  };
  final: {
    /** Null while the run is still going. */
    status: RunStatus | null;
    exit_code: number | null;
    /** Absolute path of the final answer file, once a final answer exists. */
    answer_file: string | null;
    error: ErrorInfo | null;
  };
  totals: { usage: SnakeUsage; cost_usd: number };
}

/** What {@link buildStatusDocument} needs besides the run state. */
export interface StatusContext {
  /** Used until `run.started` supplies the run's own start time. */
  startedAt: Date;
  /** Milliseconds since the epoch; the clock is injected so snapshots are testable. */
  now: number;
  finalAnswerFile: string | null;
}

const roundSeconds = (ms: number): number => Math.round(ms) / 1000;

/** Projects the run state into the `status.json` document. Pure. */
export function buildStatusDocument(state: RunState, context: StatusContext): StatusDocument {
  const startedMs = state.startedAt ?? context.startedAt.getTime();
  const endMs = state.finishedAt ?? context.now;
  const agents: Record<string, StatusAgentEntry> = {};
  for (const agent of state.agents) {
    agents[agent.agentId] = {
      anonymous_id: agent.anonymousId,
      backend: agent.backendType,
      model: agent.model,
      status: agent.status,
      answer_count: agent.answerCount,
      latest_label: agent.latestLabel,
      vote: agent.vote
        ? { target: agent.vote.targetAgentId, label: agent.vote.targetLabel, reason: agent.vote.reason }
        : null,
      consecutive_failures: agent.consecutiveFailures,
      total_failures: agent.totalFailures,
      dropped_reason: agent.droppedReason,
      usage: toSnakeUsage(agent.usage),
      cost_usd: agent.priced ? roundCost(agent.costUsd) : null,
    };
  }
  return {
    run_id: state.runId,
    question: state.question,
    phase: state.phase,
    started_at: new Date(startedMs).toISOString(),
    updated_at: new Date(context.now).toISOString(),
    elapsed_seconds: roundSeconds(Math.max(0, endMs - startedMs)),
    agents,
    coordination: {
      end_reason: state.coordinationEnd,
      winner: state.winnerId,
      winner_label: state.winnerLabel,
      tallies: state.coordinationEnd === null ? currentTallies(state) : state.tallies,
    },
    final: {
      status: state.status,
      exit_code: state.exitCode,
      answer_file: context.finalAnswerFile,
      error: state.error,
    },
    totals: { usage: toSnakeUsage(totalUsage(state)), cost_usd: roundCost(totalCost(state)) },
  };
}
