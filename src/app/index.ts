// The whole of app/: what every CLI invocation needs (essentials.ts) and what only some commands do.
export * from './essentials.js';
// Not in essentials: it loads the skills modules, which a plain run does not need.
export { validateConfig } from './validate.js';
export {
  runSetupWizard,
  askLocalModelDownload,
  type SetupWizardIo,
  type SetupResult,
} from './setup-wizard/wizard.js';
export { PromptCancelledError, type Output } from './setup-wizard/prompter.js';
export { providerChoices, TEAM_PRESETS, type ProviderChoice, type TeamPreset } from './setup-wizard/team.js';
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
  configReadiness,
  problemOf,
  problemsOfError,
  startProblems,
  type ConfigReadiness,
  type StartProblem,
} from './start-problems.js';
export {
  conversationToRun,
  streamChatRun,
  totalUsage,
  ConversationError,
  type ChatMessage,
  type ChatRunPart,
} from './chat-run.js';
export {
  configPrerequisites,
  probeServer,
  type ModelPrerequisite,
  type Prerequisite,
  type ServerPrerequisite,
} from './config-prerequisites.js';
