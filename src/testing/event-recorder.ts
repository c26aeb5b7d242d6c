import type { RunEvent, RunEventOf, RunEventType } from '../types/events.js';

/** Collects every event of a run, with typed look-ups for assertions. */
export class EventRecorder {
  readonly events: RunEvent[] = [];

  /** Drains a run's event stream. */
  static async record(stream: AsyncIterable<RunEvent>): Promise<EventRecorder> {
    const recorder = new EventRecorder();
    for await (const event of stream) recorder.events.push(event);
    return recorder;
  }

  ofType<T extends RunEventType>(type: T): RunEventOf<T>[] {
    return this.events.filter((e): e is RunEventOf<T> => e.type === type);
  }

  /** The one `run.finished` event (throws if missing: every run must end with one). */
  get finished(): RunEventOf<'run.finished'> {
    const last = this.events.at(-1);
    if (!last || last.type !== 'run.finished') throw new Error('the run did not end with run.finished');
    return last;
  }

  /** Event types in order, without text deltas — compact enough for snapshots. */
  timeline(): string[] {
    return this.events
      .filter((e) => !e.type.startsWith('agent.text.') && !e.type.startsWith('agent.step.'))
      .map((e) => ('agentId' in e ? `${e.type}:${e.agentId}` : e.type));
  }
}
