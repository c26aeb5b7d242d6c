import { MassGenError } from '../types/errors.js';

/** How many known ids an unknown-session error names (the most recent ones). */
const SESSIONS_NAMED = 5;

/** `--session-id` names a session that does not exist. Exit code 1. */
export class SessionNotFoundError extends MassGenError {
  /** Every session id there is, newest first (the message names only the most recent few). */
  readonly knownIds: readonly string[];
  constructor(id: string, root: string, knownIds: readonly string[]) {
    const more = knownIds.length - SESSIONS_NAMED;
    super(
      'usage_error',
      knownIds.length === 0
        ? `unknown session "${id}": there are no sessions in ${root}`
        : more <= 0
          ? `unknown session "${id}"; known sessions: ${knownIds.join(', ')}`
          : `unknown session "${id}"; the ${SESSIONS_NAMED} most recent: ${knownIds.slice(0, SESSIONS_NAMED).join(', ')} (and ${more} more)`,
      { hint: 'massgen --list-sessions shows every session with its first question' },
    );
    this.name = 'SessionNotFoundError';
    this.knownIds = knownIds;
  }
}

/** A session folder exists but cannot be read back. Exit code 1. */
export class SessionCorruptError extends MassGenError {
  readonly path: string;
  constructor(file: string, message: string, options: { cause?: unknown } = {}) {
    super('usage_error', `session file ${file} is unreadable: ${message}`, {
      ...options,
      hint: 'start a new session, or repair or remove the file',
    });
    this.name = 'SessionCorruptError';
    this.path = file;
  }
}
