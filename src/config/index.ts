export {
  AGENT_ID_PATTERN,
  mcpServerType,
  AgentConfigSchema,
  BackendConfigSchema,
  MassGenConfigSchema,
  OrchestratorConfigSchema,
  TimeoutConfigSchema,
  UiConfigSchema,
  type AgentConfig,
  type BackendConfig,
  type MassGenConfig,
  type MassGenConfigInput,
  type OrchestratorConfig,
  type TimeoutConfig,
  type UiConfig,
  type PriceConfig,
  type RateLimitConfig,
  PriceConfigSchema,
  RateLimitConfigSchema,
} from './schema.js';
export {
  ConfigValidationError,
  formatDiagnostic,
  formatDiagnostics,
  type ConfigDiagnostic,
} from './diagnostics.js';
export { parseConfig, configNotes, type ParseConfigOptions } from './parse-config.js';
export {
  loadConfigFile,
  validateConfigFile,
  type ConfigValidationResult,
  type LoadConfigOptions,
} from './load-config-file.js';
export { loadDotEnv } from './load-dot-env.js';
export { interpolateString, type ConfigEnv } from './interpolate-env.js';
export { maskSecrets, SECRET_KEY_PATTERN } from './mask-secrets.js';
export { singleAgentConfig, type SingleAgentOptions } from './single-agent-config.js';
export { localModelEnv, type LocalModelEnv } from './local-model-env.js';
export { localDefaultConfig } from './local-default-config.js';
export { configJsonSchema } from './json-schema.js';
export { loadEvalCriteriaFile } from './eval-criteria-file.js';
export {
  DEFAULT_MEMORY_BUDGET_CHARS,
  DEFAULT_MEMORY_TOP_K,
  MemoryConfigSchema,
  type MemoryConfig,
  type MemoryEmbeddingConfig,
  type CompressionConfig,
} from './memory-schema.js';
