import type { CompressionConfig } from '../config/index.js';
import type { Backend } from '../types/backend.js';
import type { ContextCompressor } from '../types/compression.js';
import { createCompressor } from './compressor.js';

/**
 * One agent's compressor from `memory.compression`: undefined when it is off. The summaries are written
 * by the agent's own model, or by `model` on the agent's backend (`otherModel` makes that backend).
 */
export function compressorFor(
  config: CompressionConfig,
  backend: Backend,
  otherModel: (model: string) => Backend,
): ContextCompressor | undefined {
  if (!config.enabled) return undefined;
  return createCompressor({
    backend:
      config.model === undefined || config.model === backend.model ? backend : otherModel(config.model),
    triggerThreshold: config.trigger_threshold,
    targetRatio: config.target_ratio,
  });
}
