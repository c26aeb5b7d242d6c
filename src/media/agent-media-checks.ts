import { ConfigError } from '../types/errors.js';
import type { RunWarning } from '../types/events.js';
import type { MediaKind, MediaPart } from '../types/media.js';
import type { BackendFactory, MediaInput } from '../types/backend.js';
import { formatBytes, kindNoun } from './media-limits.js';

/** One agent as the media checks see it: its id, a label for messages, and what its model takes. */
export interface AgentMediaInput {
  agentId: string;
  /** E.g. `openai/gpt-4o`. */
  model: string;
  input: MediaInput;
}

/**
 * Checks the question's media against every agent's provider before any request: a file over a
 * provider's limit for its kind stops the run (one line naming file, agent and limit); a kind an
 * agent's model does not take is a `media_unsupported` warning for that agent (it reads a note instead,
 * see `coordination/media-filter.ts`).
 *
 * @throws {ConfigError} for the first file over an agent's provider limit.
 */
export function checkMediaForAgents(
  media: readonly MediaPart[],
  agents: readonly AgentMediaInput[],
): RunWarning[] {
  const warnings: RunWarning[] = [];
  for (const agent of agents) {
    const missing = new Map<MediaKind, string[]>();
    for (const part of media) {
      if (!agent.input.kinds.includes(part.kind)) {
        missing.set(part.kind, [...(missing.get(part.kind) ?? []), part.name]);
        continue;
      }
      const limit = agent.input.maxBytes?.[part.kind];
      if (limit !== undefined && part.bytes > limit)
        throw new ConfigError(
          `attachment ${part.name}: ${formatBytes(part.bytes)} is over the ${formatBytes(limit)} limit for ${kindNoun(part.kind, true)} of agent ${agent.agentId} (${agent.model})`,
          {
            hint: 'shrink the file, or give it as a context path (orchestrator.context_paths) so the agents can work on it with their tools',
          },
        );
    }
    if (missing.size === 0) continue;
    const kinds = [...missing.keys()].map((kind) => kindNoun(kind, true));
    const names = [...missing.values()].flat();
    warnings.push({
      code: 'media_unsupported',
      message: `agent ${agent.agentId} (${agent.model}) cannot take ${kinds.length === 1 ? kinds[0] : `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`}: it is not shown ${names.join(', ')} and reads a note naming ${names.length === 1 ? 'it' : 'them'} instead`,
    });
  }
  return warnings;
}

/** What a backend factory says its model takes; absent: images when it takes images, else nothing. */
export function mediaInputOf(
  factory: Pick<BackendFactory, 'capabilities' | 'mediaIn'>,
  settings: Parameters<NonNullable<BackendFactory['mediaIn']>>[0],
): MediaInput {
  return factory.mediaIn?.(settings) ?? { kinds: factory.capabilities.imagesIn ? ['image'] : [] };
}
