export { backendFactories, backendTypes, findBackendFactory } from './registry.js';
export { chatCompletionBackend } from './chatcompletion/index.js';
export {
  createLanguageModelBackend,
  type LanguageModelBackendOptions,
} from './ai-sdk/language-model-backend.js';
export { isLoopbackUrl } from './is-loopback-url.js';
