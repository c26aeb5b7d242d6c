import type { AgentSpec } from './settings.js';
import type { ViewAnswer } from './prompts.js';

/** One accepted answer. Versions count per agent from 1; the label is `agent{N}.{k}`. */
export interface Answer {
  agentIndex: number;
  /** Order of acceptance over the whole run (0, 1, 2, …). */
  order: number;
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
  /** Counted votes this agent's answers ever received, reset ones included (for the timeout fallback). */
  votesEver: number;
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
 * The shared facts of a coordination: answers, counted votes, who sees whom, and the per-viewer answer
 * version that tells whether an agent's view is current. Mutated only by the orchestrator's event
 * handlers, which run one at a time on the event loop, so no locking is needed.
 */
export class CoordinationState {
  readonly agents: AgentRuntime[];
  /** Bumped on every accepted answer and when a final round starts. */
  version = 0;
  private answerCount = 0;
  /** Set during the final round among island winners: everyone sees only these answers. */
  private finalRound: ReadonlySet<number> | null = null;
  private rounds = 0;

  /** Each visibility set's members in config order, computed once per set (sets are shared and fixed). */
  private readonly ordered = new WeakMap<ReadonlySet<number>, readonly number[]>();

  constructor(
    specs: readonly AgentSpec[],
    private readonly visible: readonly ReadonlySet<number>[] = Array<ReadonlySet<number>>(specs.length).fill(
      new Set(specs.map((_, i) => i)),
    ),
  ) {
    this.agents = specs.map((spec, index) => ({
      index,
      spec,
      anonymousId: `agent${index + 1}`,
      answers: [],
      vote: null,
      votesEver: 0,
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

  /** Whose answers `viewer` may see (itself included). */
  visibleTo(viewer: number): ReadonlySet<number> {
    return this.finalRound ?? this.visible[viewer] ?? new Set([viewer]);
  }

  /** The latest answer of every agent that has one, in config order (of those `viewer` sees, if given). */
  currentAnswers(viewer?: number): Answer[] {
    const answers: Answer[] = [];
    // Only the agents the viewer sees are looked at: with random_k that is k+1 of a large team.
    const indices = viewer === undefined ? null : this.inConfigOrder(this.visibleTo(viewer));
    const count = indices === null ? this.agents.length : indices.length;
    for (let n = 0; n < count; n++) {
      const agent = this.agents[indices === null ? n : (indices[n] as number)];
      const latest = agent?.answers.at(-1);
      if (latest) answers.push(latest);
    }
    return answers;
  }

  private inConfigOrder(members: ReadonlySet<number>): readonly number[] {
    let ordered = this.ordered.get(members);
    if (!ordered) {
      ordered = [...members].filter((i) => i >= 0 && i < this.agents.length).sort((a, b) => a - b);
      this.ordered.set(members, ordered);
    }
    return ordered;
  }

  /** The version of what `viewer` can see: a view taken at another version is stale. */
  versionFor(viewer: number): number {
    const sees = this.visibleTo(viewer);
    let answers = 0;
    for (const index of sees) answers += this.agent(index).answers.length;
    return answers + this.rounds * 1_000_000;
  }

  /** What `viewer` may see now (everyone's answers when no viewer is given). */
  snapshot(viewer?: number): SeenAnswers {
    return new Map(this.currentAnswers(viewer).map((a) => [a.agentIndex, a.version]));
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

  /** Answers `viewer` sees that are new or changed relative to `seen`, in config order. */
  changedSince(seen: SeenAnswers, viewer: number): Answer[] {
    return this.currentAnswers(viewer).filter((a) => seen.get(a.agentIndex) !== a.version);
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

  /**
   * Records an accepted answer, bumps the version and clears the counted votes of every agent that can
   * see it (the others do not know it exists). Returns the voters cleared.
   */
  acceptAnswer(agentIndex: number, content: string): { answer: Answer; clearedVoters: AgentRuntime[] } {
    const agent = this.agent(agentIndex);
    const version = agent.answers.length + 1;
    const answer: Answer = {
      agentIndex,
      order: this.answerCount++,
      version,
      label: `${agent.anonymousId}.${version}`,
      content,
    };
    agent.answers.push(answer);
    this.version++;
    const clearedVoters = this.agents.filter(
      (a) => a.vote !== null && this.visibleTo(a.index).has(agentIndex),
    );
    for (const a of clearedVoters) a.vote = null;
    return { answer, clearedVoters };
  }

  /** Records a counted vote. */
  castVote(voterIndex: number, vote: CountedVote): void {
    this.agent(voterIndex).vote = vote;
    this.agent(vote.targetIndex).votesEver++;
  }

  active(): AgentRuntime[] {
    return this.agents.filter((a) => !a.dropped);
  }

  /**
   * `all`: every active agent holds a counted vote and none is still working. `majority`: a strict
   * majority of the active agents holds counted votes for one answer (the rest need not finish).
   */
  hasConsensus(mode: 'all' | 'majority' = 'all'): boolean {
    // Asked at every turn's end: counted in place, with no list of agents made for it.
    let active = 0;
    let settled = 0;
    for (const a of this.agents) {
      if (a.dropped) continue;
      active++;
      if (a.vote !== null && !a.inFlight) settled++;
    }
    if (active === 0) return false;
    if (mode === 'all') return settled === active;
    let best = 0;
    for (const count of this.tallies().values()) best = Math.max(best, count);
    return best * 2 > active;
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
   * The deterministic winner, from what exists: most counted votes (ties to the earliest agent in
   * config order); else the agent whose answers drew the most votes earlier (votes since reset by a
   * newer answer), with its latest answer; else the agent with the earliest answer. Null without answers.
   */
  pickWinner(candidates?: ReadonlySet<number>): number | null {
    const allowed = (index: number) => candidates === undefined || candidates.has(index);
    const most = (score: (a: AgentRuntime) => number): number | null => {
      let best: number | null = null;
      let bestScore = 0;
      for (const a of this.agents) {
        if (!allowed(a.index) || a.answers.length === 0) continue;
        const value = score(a);
        if (value > bestScore) [best, bestScore] = [a.index, value];
      }
      return best;
    };
    const tallies = this.tallies();
    const earliest = this.agents
      .filter((a) => allowed(a.index) && a.answers.length > 0)
      .sort((a, b) => (a.answers[0]?.order ?? 0) - (b.answers[0]?.order ?? 0))[0];
    return most((a) => tallies.get(a.index) ?? 0) ?? most((a) => a.votesEver) ?? earliest?.index ?? null;
  }

  /**
   * Starts the final round among island winners: every agent sees only `finalists`' answers, every
   * view is stale and every vote is cleared.
   */
  startFinalRound(finalists: ReadonlySet<number>): void {
    this.finalRound = finalists;
    this.rounds++;
    this.version++;
    for (const a of this.agents) a.vote = null;
  }

  /**
   * A new attempt after the winner sent the final answer back: answers, votes and the final round are
   * cleared (dropped agents stay dropped); every view is stale.
   */
  resetForRestart(): void {
    for (const a of this.agents) {
      a.answers = [];
      a.vote = null;
      a.votesEver = 0;
    }
    this.finalRound = null;
    this.rounds++;
    this.version++;
  }

  /** The finalists while a final round runs, else null. */
  get finalists(): ReadonlySet<number> | null {
    return this.finalRound;
  }
}
