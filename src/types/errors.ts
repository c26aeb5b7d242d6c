/**
 * The error taxonomy. Every error a user can meet is a {@link MassGenError} with a stable
 * string `code`; front ends print `message` (and `hint`) as one line and map the code to an exit code.
 */
export type ErrorCode =
  | 'config_error'
  | 'usage_error'
  | 'provider_error'
  | 'model_behaviour_error'
  | 'tool_error'
  | 'permission_denied'
  | 'timeout'
  | 'cancelled'
  | 'budget_exceeded'
  /** A request would not fit the model's context window even after trimming: it is not sent. */
  | 'context_overflow'
  | 'run_failed';

/** Base class of every error massgen raises on purpose. */
export class MassGenError extends Error {
  readonly code: ErrorCode;
  /** One short sentence telling the user what to do next, printed after the message. */
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; hint?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MassGenError';
    this.code = code;
    this.hint = options.hint;
  }
}

/** A configuration or command-line problem: exit code 1. */
export class ConfigError extends MassGenError {
  /** Where in the config the problem is, e.g. `agents[1].backend.modle`. */
  readonly path: string | undefined;
  constructor(message: string, options: { cause?: unknown; hint?: string; path?: string } = {}) {
    super('config_error', message, options);
    this.name = 'ConfigError';
    this.path = options.path;
  }
}

/** A model provider failed. `retryable` decides whether the step is retried with backoff. */
export class ProviderError extends MassGenError {
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** Delay the provider asked for (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  readonly provider: string;
  /**
   * True when the request never reached the provider (connection refused, host not found, network
   * unreachable): a run whose every agent fails this way could not start, rather than failed.
   */
  readonly unreachable: boolean;
  /**
   * True when the provider answered before the failure (an HTTP status, or a response that was
   * streaming): the provider was reached, whatever a later retry met.
   */
  readonly responded: boolean;
  constructor(
    provider: string,
    message: string,
    options: {
      cause?: unknown;
      hint?: string;
      retryable: boolean;
      status?: number;
      retryAfterMs?: number;
      unreachable?: boolean;
      responded?: boolean;
    },
  ) {
    super('provider_error', message, options);
    this.name = 'ProviderError';
    this.provider = provider;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
    this.unreachable = options.unreachable ?? false;
    this.responded = options.responded ?? options.status !== undefined;
  }
}

/** The model misused the workflow tools more often than the enforcement budget allows. */
export class ModelBehaviourError extends MassGenError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('model_behaviour_error', message, options);
    this.name = 'ModelBehaviourError';
  }
}

/** A tool failed; its message is returned to the model as a tool-error result. */
export class ToolError extends MassGenError {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super('tool_error', message, options);
    this.name = 'ToolError';
  }
}

export class PermissionDeniedError extends MassGenError {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super('permission_denied', message, options);
    this.name = 'PermissionDeniedError';
  }
}

export class TimeoutError extends MassGenError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('timeout', message, options);
    this.name = 'TimeoutError';
  }
}

/** The run's cost passed `orchestrator.max_cost_usd`. */
export class BudgetExceededError extends MassGenError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('budget_exceeded', message, options);
    this.name = 'BudgetExceededError';
  }
}

export class CancelledError extends MassGenError {
  constructor(message = 'Cancelled', options: { cause?: unknown } = {}) {
    super('cancelled', message, options);
    this.name = 'CancelledError';
  }
}

/** Exit codes shared by every front end. */
export const ExitCode = {
  success: 0,
  config: 1,
  runFailed: 2,
  timedOutWithoutAnswer: 3,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Maps any thrown value to the exit code a front end should use. A provider that could not be reached
 * at all (no network, no server, a model hub offline) means the run could not start: exit 1, the
 * same as a run whose every agent failed to reach its provider (`provider_unreachable`).
 */
export function exitCodeForError(error: unknown): ExitCode {
  if (error instanceof MassGenError) {
    if (error.code === 'config_error' || error.code === 'usage_error') return ExitCode.config;
    if (error.code === 'cancelled') return ExitCode.interrupted;
  }
  if (error instanceof ProviderError && error.unreachable) return ExitCode.config;
  return ExitCode.runFailed;
}

/** A one-line, secret-free description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
