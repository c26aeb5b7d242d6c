import type { RunEventInput } from '../types/events.js';
import type { SecretScrubber, TextStreamScrubber } from '../util/secret-scrubber.js';

type TextEventInput = Extract<
  RunEventInput,
  { type: 'agent.text.start' | 'agent.text.delta' | 'agent.text.end' }
>;
type StreamKey = Pick<TextEventInput, 'agentId' | 'phase' | 'kind'>;

/** Events after which no text stream of their agent is still open (model-step closes its stream first). */
const ENDS_AGENT_STREAMS = new Set<RunEventInput['type']>([
  'agent.step.finished',
  'agent.step.retrying',
  'agent.turn.finished',
  'agent.dropped',
  'presentation.finished',
]);

/**
 * The secret scrubbing of the run's one event stream, applied where events are emitted so every view
 * (screen, logs, web, serve) gets the same scrubbed events.
 *
 * Every string of every event is scrubbed whole, except streamed text: each text stream (one agent,
 * phase and kind, from `agent.text.start` to `agent.text.end`) goes through its own streaming scrubber,
 * so a secret split over deltas is masked whole and never shown in part. A delta carries the text that
 * is safe so far; a delta whose safe text is empty is not emitted; what is held back is emitted as a
 * last delta right before `agent.text.end`. The concatenated deltas of a stream equal the scrubbed
 * whole text.
 */
export class EventScrubber {
  private readonly streams = new Map<string, { key: StreamKey; scrubber: TextStreamScrubber }>();

  constructor(private readonly scrubber: SecretScrubber) {}

  /** The scrubbed events to emit for one event (none, one, or held-back text first). */
  scrub(input: RunEventInput): RunEventInput[] {
    switch (input.type) {
      case 'agent.text.start':
        // A stream that was never ended (not expected) shows what it held before the new one starts.
        return [...this.close(input, false), this.scrubber.deep(input)];
      case 'agent.text.delta': {
        const id = streamId(input);
        let stream = this.streams.get(id);
        if (!stream) {
          stream = {
            key: { agentId: input.agentId, phase: input.phase, kind: input.kind },
            scrubber: this.scrubber.stream(),
          };
          this.streams.set(id, stream);
        }
        const text = stream.scrubber.push(input.text);
        // The text is scrubbed as part of its stream: scrubbing the piece again could mask differently.
        return text === '' ? [] : [{ ...this.scrubber.deep({ ...input, text: '' }), text }];
      }
      case 'agent.text.end':
        return [...this.close(input, false), this.scrubber.deep(input)];
      case 'run.finished':
        return [...this.closeAll(() => true), this.scrubber.deep(input)];
      default: {
        const agentId = 'agentId' in input ? input.agentId : undefined;
        const held =
          agentId !== undefined && ENDS_AGENT_STREAMS.has(input.type)
            ? this.closeAll((key) => key.agentId === agentId)
            : [];
        return [...held, this.scrubber.deep(input)];
      }
    }
  }

  /** Ends one stream: its held-back text as a last delta (and its end, when the stream is left open). */
  private close(key: StreamKey, withEnd: boolean): RunEventInput[] {
    const id = streamId(key);
    const stream = this.streams.get(id);
    if (!stream) return [];
    this.streams.delete(id);
    const text = stream.scrubber.flush();
    const { agentId, phase, kind } = stream.key;
    return [
      ...(text === ''
        ? []
        : [
            {
              ...this.scrubber.deep({ type: 'agent.text.delta' as const, agentId, phase, kind, text: '' }),
              text,
            },
          ]),
      ...(withEnd ? [{ type: 'agent.text.end' as const, agentId, phase, kind }] : []),
    ];
  }

  /** Ends the streams left open (a step that ended without closing its stream: not expected). */
  private closeAll(which: (key: StreamKey) => boolean): RunEventInput[] {
    return [...this.streams.values()].filter((s) => which(s.key)).flatMap((s) => this.close(s.key, true));
  }
}

const streamId = (key: StreamKey) => `${key.agentId}\u0000${key.phase}\u0000${key.kind}`;
