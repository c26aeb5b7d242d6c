/**
 * First run and setup: which config a run uses when none is named, the bundled examples, and the
 * `massgen --setup` wizard. The CLI imports these from here (or from `app/index.ts` once re-exported),
 * since it may not import `config/` directly.
 */
export {
  runSetupWizard,
  shouldRunWizard,
  askLocalModelDownload,
  isLocalModelCached,
  type SetupWizardIo,
  type SetupResult,
  type WizardDecision,
} from './wizard.js';
export { PromptCancelledError, type Output } from './prompter.js';
export { providerChoices, TEAM_PRESETS, type ProviderChoice, type TeamPreset } from './team.js';
export {
  discoverConfig,
  loadUserEnv,
  userConfigDir,
  userConfigFile,
  userEnvFile,
  PROJECT_CONFIG_FILE,
  type DiscoveredConfig,
  type DiscoveryOptions,
} from '../../config/config-discovery.js';
export {
  EXAMPLE_PREFIX,
  exampleForCopy,
  isExampleRef,
  listExamples,
  readExample,
  resolveExampleRef,
  type ExampleInfo,
} from '../../config/examples.js';
