export { createMediaGenerationToolProvider } from './media-generation-tool-provider.js';
export { DEFAULT_MEDIA_MODELS, MEDIA_JOBS_BY_PROVIDER, MEDIA_KEY_ENVS } from './media-models.js';
export {
  MEDIA_JOBS,
  MEDIA_TOOL_NAMES,
  MEDIA_TOOLS,
  type MediaJob,
  type MediaToolName,
} from './media-tools.js';
export { imageCost, speechCost, transcriptionCost, videoCost, type Priced } from './media-pricing.js';
export type { MediaGenerationSettings, MediaModelSettings, MediaProvider } from './settings.js';
export { GENERATED_DIR } from './workspace-output.js';
