import { untilAborted } from '../../util/abort.js';
import type { DemoPersona } from './demo-answers.js';

/** A vote a member cast while it saw an answer from every member: nothing but a revision can follow. */
interface SeenVote {
  member: number;
  seen: readonly string[];
}

/** How long a reviser waits for a teammate's vote before going on without it (a teammate failed). */
export const CUE_TIMEOUT_MS = 30_000;

/**
 * The cues the scripted agents of one run act on, so the run tells the same story however the machine
 * schedules it: Grace's revision waits until a teammate has cast a vote that saw her first answer and
 * every other member's — a vote that is therefore counted, and that her revision then resets. Without
 * it the reset would depend on which timer fires first.
 */
export class DemoScene {
  private readonly members: DemoPersona[] = [];
  private readonly votes: SeenVote[] = [];
  private readonly waiters = new Set<() => void>();

  /** Adds an agent; returns its member number. */
  join(persona: DemoPersona): number {
    this.members.push(persona);
    return this.members.length - 1;
  }

  /** The personas of the members, in the order they joined (the config's order). */
  get roster(): readonly DemoPersona[] {
    return this.members;
  }

  /** Records a vote cast by `member` with `seen` (every answer's text) in view, and wakes the waiters. */
  recordVote(member: number, seen: readonly string[]): void {
    this.votes.push({ member, seen });
    for (const wake of this.waiters) wake();
  }

  /**
   * Resolves once another member has voted with `answer` in view, at once when there is no other
   * member to wait for, or after `timeoutMs`; rejects with the signal's reason when it aborts.
   */
  async voteSeeing(
    member: number,
    answer: string,
    signal: AbortSignal,
    timeoutMs = CUE_TIMEOUT_MS,
  ): Promise<void> {
    const done = () => this.votes.some((v) => v.member !== member && v.seen.includes(answer));
    if (this.members.length < 2 || done()) return;
    let wake!: () => void;
    let timer!: NodeJS.Timeout;
    const cued = new Promise<void>((resolve) => {
      wake = () => {
        if (done()) resolve();
      };
      timer = setTimeout(resolve, timeoutMs);
    });
    this.waiters.add(wake);
    try {
      await untilAborted(cued, signal);
    } finally {
      clearTimeout(timer);
      this.waiters.delete(wake);
    }
  }
}

const scenes = new WeakMap<object, DemoScene>();

/** The scene of one run's team (`BackendSettings.team`); a backend outside a team gets one of its own. */
export function sceneOf(team: object | undefined): DemoScene {
  if (team === undefined) return new DemoScene();
  let scene = scenes.get(team);
  if (!scene) scenes.set(team, (scene = new DemoScene()));
  return scene;
}
