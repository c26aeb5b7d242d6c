import type { AgentSpec } from './settings.js';
import type { ViewAnswer } from './prompts.js';

/** One accepted answer. Versions count per agent from 1; the label is `agent{N}.{k}`. */
export interface Answer {
  agentIndex: number;
  version: number;
  label: string;
  content: string;
}

export interface CountedVote {
  targetIndex: number;
  targetLabel: string;
  reason: string;
}

/** What one agent's in-flight turn has seen: per agent index, the version of its answer. */
export type SeenAnswers = Map<number, number>;

export interface AgentRuntime {
  index: number;
  spec: AgentSpec;
  anonymousId: string;
  answers: Answer[];
  vote: CountedVote | null;
  consecutiveFailures: number;
  dropped: boolean;
  turns: number;
  inFlight: boolean;
}

/**
 * The shared facts of a coordination: answers, counted votes, and the global answer version that
 * tells whether an agent's view is current. Mutated only by the orchestrator's event handlers, which
 * run one at a time on the event loop, so no locking is needed.
 */
export class CoordinationState {
  readonly agents: AgentRuntime[];
  /** Incremented on every accepted answer; a view is current when it saw this version. */
  version = 0;

  constructor(specs: readonly AgentSpec[]) {
    this.agents = specs.map((spec, index) => ({
      index,
      spec,
      anonymousId: `agent${index + 1}`,
      answers: [],
      vote: null,
      consecutiveFailures: 0,
      dropped: false,
      turns: 0,
      inFlight: false,
    }));
  }

  agent(index: number): AgentRuntime {
    const agent = this.agents[index];
    if (!agent) throw new Error(`no agent at index ${index}`);
    return agent;
  }

  latest(index: number): Answer | undefined {
    return this.agent(index).answers.at(-1);
  }

  /** The latest answer of every agent that has one, in config order. */
  currentAnswers(): Answer[] {
    return this.agents.flatMap((a) => (a.answers.length > 0 ? [a.answers.at(-1) as Answer] : []));
  }

  /** What an agent may see now, and the snapshot of versions it is based on. */
  snapshot(): SeenAnswers {
    return new Map(this.currentAnswers().map((a) => [a.agentIndex, a.version]));
  }

  /**
   * The answers in a viewer's snapshot, rotated by the viewer's position so that no answer is
   * always read first (position bias), yet deterministic for reproducible runs.
   */
  viewFor(viewerIndex: number, seen: SeenAnswers): ViewAnswer[] {
    const answers = [...seen.entries()]
      .sort(([a], [b]) => a - b)
      .map(([agentIndex, version]) => this.answerAt(agentIndex, version));
    if (answers.length === 0) return [];
    const shift = viewerIndex % answers.length;
    return [...answers.slice(shift), ...answers.slice(0, shift)].map((a) => ({
      anonymousId: this.agent(a.agentIndex).anonymousId,
      content: a.content,
    }));
  }

  /** Answers that are new or changed relative to `seen`, in config order. */
  changedSince(seen: SeenAnswers): Answer[] {
    return this.currentAnswers().filter((a) => seen.get(a.agentIndex) !== a.version);
  }

  answerAt(agentIndex: number, version: number): Answer {
    const answer = this.agent(agentIndex).answers[version - 1];
    if (!answer) throw new Error(`no answer ${version} for agent index ${agentIndex}`);
    return answer;
  }

  indexOfAnonymousId(anonymousId: string): number | undefined {
    const index = this.agents.findIndex((a) => a.anonymousId === anonymousId);
    return index === -1 ? undefined : index;
  }

  /** Records an accepted answer, bumps the version and clears every counted vote. Returns the voters cleared. */
  acceptAnswer(agentIndex: number, content: string): { answer: Answer; clearedVoters: AgentRuntime[] } {
    const agent = this.agent(agentIndex);
    const version = agent.answers.length + 1;
    const answer: Answer = { agentIndex, version, label: `${agent.anonymousId}.${version}`, content };
    agent.answers.push(answer);
    this.version++;
    const clearedVoters = this.agents.filter((a) => a.vote !== null);
    for (const a of clearedVoters) a.vote = null;
    return { answer, clearedVoters };
  }

  active(): AgentRuntime[] {
    return this.agents.filter((a) => !a.dropped);
  }

  /** Every active agent holds a counted vote (and there is at least one active agent). */
  hasConsensus(): boolean {
    const active = this.active();
    return active.length > 0 && active.every((a) => a.vote !== null && !a.inFlight);
  }

  /** Counted votes per agent index. */
  tallies(): Map<number, number> {
    const tallies = new Map<number, number>();
    for (const a of this.agents) {
      if (a.vote) tallies.set(a.vote.targetIndex, (tallies.get(a.vote.targetIndex) ?? 0) + 1);
    }
    return tallies;
  }

  /**
   * The deterministic winner: most counted votes, ties to the earliest agent in config order;
   * with no counted votes, the earliest agent in config order that has an answer.
   */
  pickWinner(): number | null {
    let best: number | null = null;
    let bestVotes = 0;
    for (const [index, votes] of [...this.tallies().entries()].sort(([a], [b]) => a - b)) {
      if (votes > bestVotes) {
        best = index;
        bestVotes = votes;
      }
    }
    if (best !== null) return best;
    const first = this.agents.find((a) => a.answers.length > 0);
    return first ? first.index : null;
  }
}
