import type { CoordinationEndReason, ErrorInfo, RunEvent, RunStatus } from './events.js';
import { initialFinalFinish, reduceFinalFinish, type FinalFinish } from './final-finish.js';
import { initialQualityState, reduceQualityState, type QualityState } from './quality-state.js';
import { addUsage, emptyUsage, type TokenUsage } from './usage.js';

/**
 * The canonical projection of a run's event stream: a pure reducer that every view shares
 * (`status.json`, the terminal UI, the web UI), so they all show the same truth.
 */

/** `stopped`: its work was cut off when coordination or the run ended (timeout, cancel, turn ceiling). */
export type AgentStatus =
  'waiting' | 'thinking' | 'answered' | 'voted' | 'failed' | 'dropped' | 'presenting' | 'done' | 'stopped';

/** Agents still at work when coordination or the run ends are stopped, never left `thinking`. */
function stopWorking(state: RunState, working: readonly AgentStatus[]): AgentState[] {
  return state.agents.map((a) => (working.includes(a.status) ? { ...a, status: 'stopped' } : a));
}

export interface AgentVoteState {
  targetAgentId: string;
  targetAnonymousId: string;
  targetLabel: string;
  reason: string;
}

export interface AgentState {
  agentId: string;
  anonymousId: string;
  backendType: string;
  model: string;
  status: AgentStatus;
  turns: number;
  answerCount: number;
  latestLabel: string | null;
  /** The counted vote this agent currently holds. */
  vote: AgentVoteState | null;
  consecutiveFailures: number;
  totalFailures: number;
  droppedReason: string | null;
  lastError: ErrorInfo | null;
  usage: TokenUsage;
  /** Dollars spent by this agent's model calls (0 when its price is unknown). */
  costUsd: number;
  /** Whether a price is known for this agent's model. */
  priced: boolean;
  toolCalls: number;
  restarts: number;
  updatesReceived: number;
}

export interface AnswerRecord {
  agentId: string;
  anonymousId: string;
  label: string;
  content: string;
  ts: number;
}

export interface VoteRecord {
  voterId: string;
  targetAgentId: string;
  targetAnonymousId: string;
  targetLabel: string;
  reason: string;
  counted: boolean;
  ts: number;
}

export type RunPhase = 'starting' | 'coordinating' | 'presenting' | 'finished';

export interface RunState {
  runId: string | null;
  question: string;
  phase: RunPhase;
  startedAt: number | null;
  finishedAt: number | null;
  agents: AgentState[];
  answers: AnswerRecord[];
  votes: VoteRecord[];
  coordinationEnd: CoordinationEndReason | null;
  winnerId: string | null;
  winnerLabel: string | null;
  /** Counted votes per agent id at the end of coordination. */
  tallies: Record<string, number>;
  finalAnswer: string | null;
  presentationFallback: boolean;
  status: RunStatus | null;
  exitCode: number | null;
  error: ErrorInfo | null;
  /** 1, then 2, 3 … after the winner sent the final answer back (`max_orchestration_restarts`). */
  attempt: number;
  /** Agent ids of the island winners during a final round, else null. */
  finalists: string[] | null;
  /** The checklist criteria and score matrix (`checklist_gated`), and the subtasks (`decomposition`). */
  quality: QualityState;
  /** Why the model stopped writing the final answer (`cutOffReason` says whether it was cut off). */
  finalFinish: FinalFinish;
}

export const initialRunState = (): RunState => ({
  runId: null,
  question: '',
  phase: 'starting',
  startedAt: null,
  finishedAt: null,
  agents: [],
  answers: [],
  votes: [],
  coordinationEnd: null,
  winnerId: null,
  winnerLabel: null,
  tallies: {},
  finalAnswer: null,
  presentationFallback: false,
  status: null,
  exitCode: null,
  error: null,
  attempt: 1,
  finalists: null,
  quality: initialQualityState(),
  finalFinish: initialFinalFinish(),
});

/**
 * Where each agent is in an agents array, by id. Every array the reducer makes keeps the order of the
 * one it came from, so a copy inherits its source's index: finding an agent costs one lookup, not a
 * scan of a thousand ids for each of a run's events.
 */
const positions = new WeakMap<readonly AgentState[], ReadonlyMap<string, number>>();

/** The index of `agentId` in `agents`, or -1; checked, so an array someone changed in place is read anew. */
function positionOf(agents: readonly AgentState[], agentId: string): number {
  let known = positions.get(agents);
  let index = known?.get(agentId);
  if (index === undefined || agents[index]?.agentId !== agentId) {
    // Reversed, so that an id listed twice finds its first place (as `findIndex` did).
    known = new Map(agents.map((a, at) => [a.agentId, at] as const).reverse());
    positions.set(agents, known);
    index = known.get(agentId);
  }
  return index ?? -1;
}

/**
 * One agent changed. Copies the array of agents (a shallow copy: the other agents are shared), not
 * every agent: with a thousand agents this runs for most events.
 */
function updateAgent(state: RunState, agentId: string, patch: (agent: AgentState) => AgentState): RunState {
  const index = positionOf(state.agents, agentId);
  if (index === -1) return state;
  const agents = state.agents.slice();
  agents[index] = patch(agents[index] as AgentState);
  const known = positions.get(state.agents);
  if (known) positions.set(agents, known);
  return { ...state, agents };
}

/** Total token usage over all agents. */
export function totalUsage(state: RunState): TokenUsage {
  return state.agents.reduce((sum, a) => addUsage(sum, a.usage), emptyUsage());
}

/** Total dollars over all agents. */
export function totalCost(state: RunState): number {
  return state.agents.reduce((sum, a) => sum + a.costUsd, 0);
}

/** Counted votes per target agent id, from the agents' current votes. */
export function currentTallies(state: RunState): Record<string, number> {
  const tallies: Record<string, number> = {};
  for (const agent of state.agents) {
    if (agent.vote) tallies[agent.vote.targetAgentId] = (tallies[agent.vote.targetAgentId] ?? 0) + 1;
  }
  return tallies;
}

/**
 * A `vote` the model is writing (backends that stream tool input bracket it with tool-call events), not
 * an ordinary tool call: views show it as activity, and the vote itself as `vote.cast`.
 */
export const isVoteBeingWritten = (
  event: Extract<RunEvent, { type: 'tool.call.started' | 'tool.call.finished' }>,
): boolean =>
  event.toolName === 'vote' &&
  event.providerExecuted !== true &&
  !(event.type === 'tool.call.finished' && event.deferred === true);

/** Applies one event. Pure: returns a new state, never mutates. */
export function reduceRunState(previous: RunState, event: RunEvent): RunState {
  const quality = reduceQualityState(previous.quality, event);
  const finalFinish = reduceFinalFinish(previous.finalFinish, event);
  const state =
    quality === previous.quality && finalFinish === previous.finalFinish
      ? previous
      : { ...previous, quality, finalFinish };
  switch (event.type) {
    case 'run.started':
      return {
        ...state,
        runId: event.runId,
        question: event.question,
        phase: 'coordinating',
        startedAt: event.ts,
        agents: event.agents.map(({ price, ...a }) => ({
          ...a,
          costUsd: 0,
          priced: price !== null && price !== undefined,
          status: 'waiting',
          turns: 0,
          answerCount: 0,
          latestLabel: null,
          vote: null,
          consecutiveFailures: 0,
          totalFailures: 0,
          droppedReason: null,
          lastError: null,
          usage: emptyUsage(),
          toolCalls: 0,
          restarts: 0,
          updatesReceived: 0,
        })),
      };
    case 'agent.turn.started':
      return updateAgent(state, event.agentId, (a) => ({ ...a, status: 'thinking', turns: a.turns + 1 }));
    case 'agent.step.finished':
      return updateAgent(state, event.agentId, (a) => ({
        ...a,
        usage: addUsage(a.usage, event.usage),
        costUsd: a.costUsd + event.costUsd,
      }));
    case 'tool.call.started':
      return updateAgent(state, event.agentId, (a) => ({ ...a, toolCalls: a.toolCalls + 1 }));
    // A tool a provider billed (media generation) costs the agent like a model call.
    case 'tool.call.finished':
      return event.costUsd
        ? updateAgent(state, event.agentId, (a) => ({ ...a, costUsd: a.costUsd + (event.costUsd ?? 0) }))
        : state;
    case 'answer.submitted':
      return {
        ...updateAgent(state, event.agentId, (a) => ({
          ...a,
          status: 'answered',
          answerCount: a.answerCount + 1,
          latestLabel: event.label,
        })),
        answers: [
          ...state.answers,
          {
            agentId: event.agentId,
            anonymousId: event.anonymousId,
            label: event.label,
            content: event.content,
            ts: event.ts,
          },
        ],
      };
    case 'votes.reset':
      // Only the voters who can see the new answer lose their vote (visibility may hide it from others).
      return {
        ...state,
        agents: state.agents.map((a) => (event.clearedVoters.includes(a.agentId) ? { ...a, vote: null } : a)),
      };
    case 'coordination.final_round':
      return {
        ...state,
        finalists: event.finalists.map((f) => f.agentId),
        agents: state.agents.map((a) => ({ ...a, vote: null })),
      };
    case 'orchestration.restarted':
      // A new attempt: the earlier one stays in the event log, the live picture starts over.
      return {
        ...state,
        attempt: event.attempt,
        phase: 'coordinating',
        answers: [],
        votes: [],
        coordinationEnd: null,
        winnerId: null,
        winnerLabel: null,
        tallies: {},
        finalAnswer: null,
        presentationFallback: false,
        finalists: null,
        agents: state.agents.map((a) => ({
          ...a,
          status: a.status === 'dropped' ? a.status : 'waiting',
          answerCount: 0,
          latestLabel: null,
          vote: null,
        })),
      };
    case 'vote.cast': {
      const record: VoteRecord = {
        voterId: event.agentId,
        targetAgentId: event.targetAgentId,
        targetAnonymousId: event.targetAnonymousId,
        targetLabel: event.targetLabel,
        reason: event.reason,
        counted: event.counted,
        ts: event.ts,
      };
      const withVote = { ...state, votes: [...state.votes, record] };
      if (!event.counted) return withVote;
      return updateAgent(withVote, event.agentId, (a) => ({
        ...a,
        status: 'voted',
        vote: {
          targetAgentId: event.targetAgentId,
          targetAnonymousId: event.targetAnonymousId,
          targetLabel: event.targetLabel,
          reason: event.reason,
        },
      }));
    }
    case 'agent.update.injected':
      return updateAgent(state, event.agentId, (a) => ({ ...a, updatesReceived: a.updatesReceived + 1 }));
    case 'agent.turn.restarted':
      return updateAgent(state, event.agentId, (a) => ({ ...a, restarts: a.restarts + 1 }));
    case 'agent.turn.finished':
      return updateAgent(state, event.agentId, (a) => ({
        ...a,
        consecutiveFailures: event.consecutiveFailures,
        ...(event.outcome === 'failed'
          ? { status: 'failed' as const, totalFailures: a.totalFailures + 1, lastError: event.error ?? null }
          : {}),
      }));
    case 'agent.dropped':
      return updateAgent(state, event.agentId, (a) => ({
        ...a,
        status: 'dropped',
        droppedReason: event.reason,
      }));
    case 'coordination.finished':
      return {
        ...state,
        agents: stopWorking(state, ['thinking']),
        coordinationEnd: event.reason,
        winnerId: event.winnerId,
        winnerLabel: event.winnerLabel,
        tallies: event.tallies,
      };
    case 'presentation.started':
      return {
        ...updateAgent(state, event.agentId, (a) => ({ ...a, status: 'presenting' })),
        phase: 'presenting',
      };
    case 'presentation.finished':
      return {
        ...updateAgent(state, event.agentId, (a) => ({ ...a, status: 'done' })),
        finalAnswer: event.content,
        presentationFallback: event.fallback,
      };
    case 'run.finished':
      return {
        ...state,
        agents: stopWorking(state, ['thinking', 'presenting', 'waiting']),
        phase: 'finished',
        finishedAt: event.ts,
        status: event.status,
        exitCode: event.exitCode,
        winnerId: event.winnerId ?? state.winnerId,
        finalAnswer: event.finalAnswer ?? state.finalAnswer,
        error: event.error ?? null,
      };
    default:
      return state;
  }
}
