export type {
  Embedder,
  MemoryHit,
  MemoryKind,
  MemoryRecord,
  MemorySearchMode,
  MemoryStore,
} from './types.js';
export { openMemoryStore, keywordQuery, type OpenMemoryStoreOptions } from './lancedb-store.js';
export { embedderFor, openAIEmbedder, localEmbedder, DEFAULT_OPENAI_EMBEDDING_MODEL } from './embedders.js';
export { memoryContextBlock, MEMORY_HEADING } from './context-block.js';
export {
  extractMemories,
  fallbackMemories,
  parseExtraction,
  EXTRACTION_SYSTEM_PROMPT,
} from './extraction.js';
export { memoryTools, MEMORY_TOOL_NAMES } from './memory-tools.js';
export { openRunMemory, openConfiguredStore, memoryStoreDir, type RunMemory } from './run-memory.js';
