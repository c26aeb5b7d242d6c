/**
 * The part of `app/` every CLI invocation needs: preparing and validating runs, config helpers and
 * the backend listing. `app/index.ts` re-exports all of it with the rest; the CLI imports this file
 * instead, so sessions, the setup wizard, the web's file browser and chat runs load only with the
 * commands that use them (each module loaded is start-up time and memory for every run — see
 * `npm run bench`).
 */
export { runMassGen, prepareRun, type MassGenOptions, type PreparedRun } from './run-massgen.js';
export { collectRunSecrets, runScrubber } from './secrets.js';
export { buildAgentSpecs, resolveBackendSettings, type Env } from './build-agents.js';
export { coordinationSettings } from './coordination-settings.js';
export { massgenVersion, runtimeVersions } from './versions.js';
// `validateConfig` itself: from './validate.js' (it loads the skills modules, which a run may not need).
export type { ValidationReport } from './validate.js';
export { backendTypes } from '../backends/backend-table.js';
export { inferBackend } from '../backends/model-inference.js';
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
export { shouldRunWizard, isLocalModelCached, type WizardDecision } from './setup-wizard/first-run.js';
export {
  discoverConfig,
  loadUserEnv,
  userConfigDir,
  userConfigFile,
  userEnvFile,
  PROJECT_CONFIG_FILE,
  type DiscoveredConfig,
  type DiscoveryOptions,
} from '../config/config-discovery.js';
export {
  EXAMPLE_PREFIX,
  exampleForCopy,
  examplesDir,
  isExampleRef,
  listExamples,
  readExample,
  resolveExampleDataRef,
  resolveExampleRef,
  type ExampleInfo,
} from '../config/examples.js';
export { createPlainDisplay, type PlainDisplayOptions } from './plain-display.js';
export { holdsToolCalls } from './holds-tool-calls.js';
export { createFileApprovals, createFileReviews, type FileAnswerer } from './file-handshake.js';
export type { ReviewChoice, ReviewMode } from './review-desk.js';
export { parseConfigText, unsetConfigVariables } from './config-text.js';
export type { RunLauncher } from './run-launcher.js';
