import type { Capability } from '../../capability/index.js';
import type { AgentConfig } from '../../config/index.js';

/** Whether this agent asks for media generation (MassGen's `enable_*_generation` keys). */
export function requestsMediaGeneration({ backend: b }: AgentConfig): boolean {
  return Boolean(b.enable_image_generation || b.enable_audio_generation || b.enable_video_generation);
}

/**
 * Media out (docs/multimodal.md): `generate_image`, `generate_speech`, `transcribe`, `generate_video`
 * for the agents that ask for them, the files saved in their workspaces.
 */
export const mediaGenerationCapability: Capability = {
  name: 'media-generation',
  uses: (config, options) => config.agents.some(requestsMediaGeneration) && !options.agents,
  load: () => import('./media-generation-capability.js'),
  checks: async () => (await import('./media-generation-capability.js')).problems,
};
