export { runInteractive, plainTurnView, type InteractiveOptions } from './run-interactive.js';
export { listSessionsCommand, runSessionCommand, type SessionCommandOptions } from './session-commands.js';
export { HELP_TEXT } from './format.js';
export { PROMPT } from './line-input.js';
export type { CreateTurnView, InteractiveIo, TurnControl, TurnView } from './types.js';
