export {
  backendFactoryFor,
  backendTypes,
  findBackendFactory,
  loadAllBackendFactories,
  loadBackendFactories,
  loadConfigBackends,
} from './registry.js';
export { backendFacts, keyEnvsOf } from './backend-table.js';
export { chatCompletionBackend } from './chatcompletion/index.js';
export {
  createLanguageModelBackend,
  type LanguageModelBackendOptions,
} from './ai-sdk/language-model-backend.js';
export { isLoopbackUrl } from './is-loopback-url.js';
export { builtInPrices, findBuiltInPrice } from './pricing.js';
export { knownContextWindow } from './context-windows.js';
export { rateLimited } from './rate-limited-backend.js';
export { inferBackend } from './model-inference.js';
export { geminiSupportsToolCombination } from './gemini/index.js';
export { claudeBackend } from './claude/index.js';
export { geminiBackend } from './gemini/index.js';
export { openAIBackend } from './openai/index.js';
export { azureOpenAIBackend } from './azure-openai/index.js';
export { renderCapabilityTable } from './capability-table.js';
export { localBackend, disposeLocalModels, defaultThreads } from './local/index.js';
