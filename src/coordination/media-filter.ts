import type { ChatMessage } from '../types/messages.js';
import type { MediaKind, MediaPart } from '../types/media.js';

/** What one agent's model is shown of some media, and the line that names what it is not shown. */
export interface MediaForAgent {
  parts: readonly MediaPart[];
  /** Null when every part is shown. */
  note: string | null;
}

/**
 * Splits media into what a model takes (`accepts`, from the agent's {@link AgentSpec.mediaIn}; undefined:
 * every kind) and a one-line note naming the rest, so a model that cannot take a kind reads that the
 * file exists instead of the provider refusing the whole request.
 */
export function mediaForModel(
  media: readonly MediaPart[],
  accepts: readonly MediaKind[] | undefined,
): MediaForAgent {
  if (media.length === 0) return { parts: [], note: null };
  const parts = accepts === undefined ? media : media.filter((m) => accepts.includes(m.kind));
  const left = media.filter((m) => !parts.includes(m));
  if (left.length === 0) return { parts, note: null };
  const names = left.map((m) => `${m.name} (${m.kind}, ${m.mediaType})`).join(', ');
  return {
    parts,
    note: `Not shown to you, because your model cannot take ${left.length === 1 ? 'this kind' : 'these kinds'} of file: ${names}. Rely on the other agents' answers or on text about ${left.length === 1 ? 'it' : 'them'}.`,
  };
}

/**
 * The user message that carries the question to an agent: `content` with the attachments its model
 * takes, and a note naming the ones it does not.
 */
export function questionMessage(
  run: {
    readonly attachments: readonly MediaPart[];
    mediaFor(agentId: string, media: readonly MediaPart[]): MediaForAgent;
  },
  agentId: string,
  content: string,
): Extract<ChatMessage, { role: 'user' }> {
  if (run.attachments.length === 0) return { role: 'user', content };
  const { parts, note } = run.mediaFor(agentId, run.attachments);
  const shown = parts.length > 0 ? `\n\nAttached by the user: ${parts.map((p) => p.name).join(', ')}.` : '';
  return {
    role: 'user',
    content: `${content}${shown}${note ? `\n\n${note}` : ''}`,
    ...(parts.length > 0 ? { media: parts } : {}),
  };
}
