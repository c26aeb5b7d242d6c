import type { MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import { checkMediaForAgents, mediaInputOf, type AgentMediaInput } from '../media/agent-media-checks.js';
import type { AttachmentInput, LoadedAttachments } from '../media/attachments.js';
import type { RunWarning } from '../types/events.js';
import { MEDIA_KINDS, type MediaPart } from '../types/media.js';
import { resolveConfigPath } from './config-relative.js';
import { resolveAgentSettings, type Env } from './build-agents.js';

/** A run's attachments, and its question as the agents read it (the text attachments follow it). */
export interface RunAttachments extends LoadedAttachments {
  question: string;
}

/**
 * The run's attachments: the config's `attachments:` (relative to the config file; MassGen's
 * `upload_files` land there too) and the caller's (`--attach`, `runMassGen({attachments})`, relative to
 * the working folder), read and checked before any agent starts. The modules that read, download and
 * sniff them load only when there are some.
 */
export async function loadRunAttachments(
  config: MassGenConfig,
  given: readonly AttachmentInput[],
  where: {
    question: string;
    baseDir: string;
    cwd: string;
    notes: string[];
    signal?: AbortSignal;
    allowPrivateUrls?: boolean;
  },
): Promise<RunAttachments> {
  if (config.attachments.length === 0 && given.length === 0)
    return { texts: [], media: [], question: where.question };
  const { isAttachmentUrl, loadAttachments, questionWithAttachments } = await import('../media/index.js');
  const fromConfig = config.attachments.map((file, index) =>
    isAttachmentUrl(file)
      ? file
      : resolveConfigPath(file, `attachments[${index}]`, {
          baseDir: where.baseDir,
          projectDir: where.cwd,
          notes: where.notes,
        }),
  );
  // The caller's paths stay as written (resolved against cwd below), so errors quote them as given.
  const inputs = [...fromConfig, ...given];
  const loaded = await loadAttachments(inputs, {
    baseDir: where.cwd,
    download: {
      ...(where.signal ? { signal: where.signal } : {}),
      guard: { allowPrivate: where.allowPrivateUrls === true },
    },
  });
  return { ...loaded, question: questionWithAttachments(where.question, loaded.texts) };
}

/**
 * Checks the media against each agent's model: over a provider's limit is an error (thrown), a kind the
 * model does not take is a `media_unsupported` warning. Agents built from the config are judged by their
 * backend's `mediaIn`; agents given in code by their `mediaIn` (undefined: every kind, no limit).
 */
export function mediaWarnings(
  media: readonly MediaPart[],
  agents: readonly AgentSpec[],
  fromConfig: { config: MassGenConfig; env: Env } | null,
): RunWarning[] {
  if (media.length === 0) return [];
  const inputs: AgentMediaInput[] = agents.map((spec, index) => {
    const agent = fromConfig?.config.agents[index];
    if (fromConfig && agent?.id === spec.id) {
      const { settings, factory } = resolveAgentSettings(agent, index, fromConfig.env);
      return {
        agentId: spec.id,
        model: `${settings.type}/${settings.model}`,
        input: mediaInputOf(factory, settings),
      };
    }
    return {
      agentId: spec.id,
      model: `${spec.backend.type}/${spec.backend.model}`,
      input: { kinds: spec.mediaIn ?? MEDIA_KINDS },
    };
  });
  return checkMediaForAgents(media, inputs);
}
