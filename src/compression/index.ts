/** Context that never overflows: summarising older steps, and large tool results to files (docs/compression.md). */
export { compressorFor } from './agent-compression.js';
export {
  createCompressor,
  DEFAULT_TARGET_RATIO,
  DEFAULT_TRIGGER_THRESHOLD,
  type CompressorOptions,
} from './compressor.js';
export { SUMMARY_HEADING } from './summary-prompt.js';
export { TOOL_RESULTS_DIR, toolResultFiles, type ToolResultFileOptions } from './tool-result-file.js';
