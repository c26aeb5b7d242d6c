import type { Backend } from '../types/backend.js';
import { ConfigError } from '../types/errors.js';
import type { WorkspaceHooks } from '../types/workspace.js';
import { runCoordinationTurn } from './agent-turn.js';
import { CoordinationState } from './coordination-state.js';
import { presentFinalAnswer } from './presentation.js';
import type { RunContext } from './run-context.js';
import type { AgentSpec, CoordinationSettings } from './settings.js';

/**
 * Step mode: one agent takes one workflow action — a coordination turn (an answer or a vote) or the
 * final presentation — against the answers and votes an outside loop has recorded so far. The record
 * is replayed through {@link CoordinationState}, so labels, vote resets, limits and the winner are the
 * protocol's own; the turn itself is the ordinary {@link runCoordinationTurn}.
 */

/** One action in a step session's record, in the order it was taken. */
export type StepRecord =
  | { type: 'new_answer'; agentId: string; content: string }
  | { type: 'vote'; agentId: string; targetAgentId: string; reason: string };

/** What `Orchestrator.run(question, { step })` does instead of a whole coordination. */
export interface StepRequest {
  /** The agent that acts: the one agent among the orchestrator's that runs. */
  agentId: string;
  /**
   * Every agent of the session, in order: the n-th is `agent{n}` to its peers (as config order is in
   * a normal run). Must include `agentId`; the others are never called.
   */
  roster: readonly string[];
  /** The answers and counted votes so far, oldest first. */
  record: readonly StepRecord[];
  /** `turn`: one coordination turn (ends in `new_answer` or `vote`); `present`: the final answer. */
  action: 'turn' | 'present';
}

/** Where a session stands after its record: what an outside loop needs to decide the next step. */
export interface StepStanding {
  /** Every agent of the roster with its anonymous id, answer count and latest label. */
  agents: { agentId: string; anonymousId: string; answers: number; latestLabel: string | null }[];
  /** Each voter's counted vote (votes reset by a newer answer are gone). */
  votes: Record<string, { targetAgentId: string; targetLabel: string }>;
  /** Counted votes per agent id. */
  tallies: Record<string, number>;
  /** True when every agent of the roster holds a counted vote (`all`), or a strict majority backs one answer. */
  consensus: boolean;
  /** Who would present now (most votes, ties to the earliest in the roster); null without answers. */
  winnerId: string | null;
  winnerLabel: string | null;
}

/** A peer of the session: present in the state so labels and votes line up, never asked for a step. */
function peerBackend(agentId: string): Backend {
  return {
    type: 'step_peer',
    model: agentId,
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error(`step mode: ${agentId} is a peer of this step and is not run`);
    },
  };
}

/**
 * The specs of the roster in order: the acting agent's own spec (from `agents`), placeholders for the
 * rest. Throws when the acting agent is missing from either.
 */
export function stepRoster(agents: readonly AgentSpec[], step: StepRequest): AgentSpec[] {
  const own = agents.find((a) => a.id === step.agentId);
  if (!own) throw new ConfigError(`step mode: no agent "${step.agentId}" among the agents given`);
  if (!step.roster.includes(step.agentId))
    throw new ConfigError(`step mode: "${step.agentId}" is not in the session's roster`);
  return step.roster.map((id) => (id === own.id ? own : { id, backend: peerBackend(id) }));
}

/**
 * The coordination state a record leads to: answers accepted and votes cast in order, with the
 * protocol's own rules (a new answer clears the votes of everyone who can see it). Each agent's turn
 * count is its number of recorded actions. Throws for a record naming an agent outside the roster.
 */
export function replayStepRecord(
  specs: readonly AgentSpec[],
  record: readonly StepRecord[],
): CoordinationState {
  const state = new CoordinationState(specs);
  const indexOf = (id: string) => {
    const index = specs.findIndex((s) => s.id === id);
    if (index === -1) throw new ConfigError(`step mode: the record names "${id}", who is not in the roster`);
    return index;
  };
  for (const entry of record) {
    const index = indexOf(entry.agentId);
    state.agent(index).turns++;
    if (entry.type === 'new_answer') {
      state.acceptAnswer(index, entry.content);
      continue;
    }
    const targetIndex = indexOf(entry.targetAgentId);
    const target = state.latest(targetIndex);
    if (!target)
      throw new ConfigError(
        `step mode: ${entry.agentId} voted for ${entry.targetAgentId}, who has no answer`,
      );
    state.castVote(index, { targetIndex, targetLabel: target.label, reason: entry.reason });
  }
  return state;
}

/** Where the session stands after `record` (no model is called). */
export function stepStanding(
  roster: readonly string[],
  record: readonly StepRecord[],
  consensus: CoordinationSettings['consensus'] = 'all',
): StepStanding {
  const state = replayStepRecord(
    roster.map((id) => ({ id, backend: peerBackend(id) })),
    record,
  );
  const winner = state.pickWinner();
  const votes: StepStanding['votes'] = {};
  for (const a of state.agents) {
    if (a.vote)
      votes[a.spec.id] = {
        targetAgentId: state.agent(a.vote.targetIndex).spec.id,
        targetLabel: a.vote.targetLabel,
      };
  }
  return {
    agents: state.agents.map((a) => ({
      agentId: a.spec.id,
      anonymousId: a.anonymousId,
      answers: a.answers.length,
      latestLabel: a.answers.at(-1)?.label ?? null,
    })),
    votes,
    tallies: Object.fromEntries([...state.tallies()].map(([index, n]) => [state.agent(index).spec.id, n])),
    consensus: state.hasConsensus(consensus),
    winnerId: winner === null ? null : state.agent(winner).spec.id,
    winnerLabel: winner === null ? null : (state.latest(winner)?.label ?? null),
  };
}

/**
 * The agents' workspaces for one step: the acting agent's own as usual, but no peers' files — they
 * were snapshotted by other processes, if at all; answers travel as text in step mode.
 */
export function stepWorkspaces(hooks: WorkspaceHooks): WorkspaceHooks {
  return {
    describe: (agentId, phase) => hooks.describe(agentId, phase),
    snapshot: (agentId, label) => hooks.snapshot(agentId, label),
    showPeers: async () => {},
    rewrite: (content) => content,
  };
}

/**
 * The acting agent's one action. A turn returns `answered` or `voted` (the `answer.submitted` or
 * `vote.cast` event carries it); `present` returns the final answer (as `presentation.finished`).
 * Failures propagate, as from any turn.
 */
export async function runStepAction(
  ctx: RunContext,
  agentIndex: number,
  step: StepRequest,
  signal: AbortSignal,
  isCancelled: () => boolean,
): Promise<{ kind: 'turn'; outcome: 'answered' | 'voted' } | { kind: 'present'; finalAnswer: string }> {
  const agent = ctx.state.agent(agentIndex);
  agent.turns++;
  if (step.action === 'present') {
    const winner = ctx.state.pickWinner();
    if (winner !== agentIndex) {
      const who = winner === null ? 'nobody (no answers yet)' : ctx.state.agent(winner).spec.id;
      throw new Error(`step mode: ${agent.spec.id} cannot present: the winner is ${who}`);
    }
    return { kind: 'present', finalAnswer: await presentFinalAnswer(ctx, agentIndex, signal, isCancelled) };
  }
  return { kind: 'turn', outcome: await runCoordinationTurn(ctx, agentIndex, agent.turns, signal) };
}
