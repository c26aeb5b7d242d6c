import type { CompressionConfig } from '../config/index.js';
import type { Backend } from '../types/backend.js';
import type { CompressionRequest, CompressionResult, ContextCompressor } from '../types/compression.js';
import type { CompressorOptions } from './compressor.js';

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
  const options: CompressorOptions = {
    backend:
      config.model === undefined || config.model === backend.model ? backend : otherModel(config.model),
    triggerThreshold: config.trigger_threshold,
    targetRatio: config.target_ratio,
  };
  // The summarising code loads with the first request near the context window, which most runs never
  // send; the thresholds the core checks before that are the config's.
  let loaded: Promise<ContextCompressor> | undefined;
  return {
    triggerThreshold: config.trigger_threshold,
    targetRatio: config.target_ratio,
    async compress(request: CompressionRequest): Promise<CompressionResult | null> {
      loaded ??= import('./compressor.js').then(({ createCompressor }) => createCompressor(options));
      return (await loaded).compress(request);
    },
  };
}
