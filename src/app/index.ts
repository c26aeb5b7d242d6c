export { runMassGen, prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';
export { buildAgentSpecs, resolveBackendSettings, type Env } from './build-agents.js';
export { coordinationSettings } from './coordination-settings.js';
export { massgenVersion, runtimeVersions } from './versions.js';
export { validateConfig, type ValidationReport } from './validate.js';
export { backendTypes, inferBackend } from '../backends/index.js';
export { listBackends, type BackendListing } from './list-backends.js';
export {
  loadDotEnv,
  singleAgentConfig,
  formatDiagnostics,
  ConfigValidationError,
  type ConfigDiagnostic,
  type MassGenConfig,
} from '../config/index.js';
