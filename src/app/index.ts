export { runMassGen, prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';
export { collectRunSecrets, runScrubber } from './secrets.js';
export { buildAgentSpecs, resolveBackendSettings, type Env } from './build-agents.js';
export { coordinationSettings } from './coordination-settings.js';
export { massgenVersion, runtimeVersions } from './versions.js';
export { validateConfig, type ValidationReport } from './validate.js';
export { backendTypes, inferBackend } from '../backends/index.js';
export { listBackends, anyApiKeySet, knownKeyEnvs, type BackendListing } from './list-backends.js';
export { describeSandbox } from './sandboxes.js';
export {
  loadDotEnv,
  singleAgentConfig,
  localDefaultConfig,
  formatDiagnostics,
  configJsonSchema,
  ConfigValidationError,
  type ConfigDiagnostic,
  type MassGenConfig,
} from '../config/index.js';
export { DEFAULT_LOCAL_MODEL } from '../backends/local/default-model.js';
export { disposeLocalModels } from '../backends/index.js';
export * from './setup-wizard/index.js';
export {
  createSessionRunner,
  listSessions,
  loadSession,
  sessionsRoot,
  SessionNotFoundError,
  type Session,
  type SessionListing,
  type SessionRunner,
  type TurnHooks,
} from './sessions.js';
export {
  createFileBrowser,
  BrowseRefusedError,
  type FileBrowser,
  type FileEntry,
  type FilePreview,
} from './browse-files.js';
export { configChoices, type ConfigChoice } from './config-choices.js';
export {
  conversationToRun,
  streamChatRun,
  totalUsage,
  ConversationError,
  type ChatMessage,
  type ChatRunPart,
} from './chat-run.js';
export { createPlainDisplay, type PlainDisplayOptions } from './plain-display.js';
