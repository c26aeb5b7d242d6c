import { ConfigError } from '../types/errors.js';
import { formatPath } from './config-path.js';

/** One problem found in a config, in a shape front ends can print or emit as JSON. */
export interface ConfigDiagnostic {
  /** Where the problem is, e.g. `agents[1].backend.modle`; `""` for the whole file. */
  path: string;
  /** A complete sentence that makes sense on its own (it names the path when that helps). */
  message: string;
  /** What to do about it, e.g. `did you mean "model"?`. */
  hint?: string;
  /** 1-based position in the source file, when it is known. */
  line?: number;
  column?: number;
}

/**
 * One line for one problem: `config.yaml:3:7: unknown key "modle" at agents[0].backend — did you
 * mean "model"?`. The `file:line:col` prefix is what editors and terminals turn into links.
 */
export function formatDiagnostic(diagnostic: ConfigDiagnostic, source?: string): string {
  const position =
    diagnostic.line === undefined
      ? ''
      : diagnostic.column === undefined
        ? `${diagnostic.line}`
        : `${diagnostic.line}:${diagnostic.column}`;
  let prefix = '';
  if (source !== undefined && source !== '')
    prefix = position === '' ? `${source}: ` : `${source}:${position}: `;
  else if (position !== '') prefix = `line ${position.replace(':', ', column ')}: `;
  const hint = diagnostic.hint === undefined ? '' : ` — ${diagnostic.hint}`;
  return `${prefix}${diagnostic.message}${hint}`;
}

/** Human text: one line per problem, in the order given. */
export function formatDiagnostics(diagnostics: readonly ConfigDiagnostic[], source?: string): string {
  return diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, source)).join('\n');
}

/**
 * A config that could not be loaded. `message` is one line for the first problem (with a count of
 * the rest); `diagnostics` holds every problem so front ends can list them all.
 */
export class ConfigValidationError extends ConfigError {
  readonly diagnostics: ConfigDiagnostic[];
  /** The file name the diagnostics refer to, when the config came from a file. */
  readonly source: string | undefined;

  constructor(diagnostics: ConfigDiagnostic[], options: { source?: string; cause?: unknown } = {}) {
    const first = diagnostics[0] ?? { path: '', message: 'invalid configuration' };
    const more = diagnostics.length - 1;
    const suffix = more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : '';
    super(`${formatDiagnostic(first, options.source)}${suffix}`, {
      cause: options.cause,
      path: first.path === '' ? undefined : first.path,
    });
    this.name = 'ConfigValidationError';
    this.diagnostics = diagnostics;
    this.source = options.source;
  }
}

/**
 * A problem before it is placed in a file: the raw path lets the loader look up a line and column.
 * `at: 'key'` points at the key itself (unknown keys) rather than its value.
 */
export interface ConfigProblem {
  path: readonly (string | number)[];
  message: string;
  hint?: string;
  at?: 'key' | 'value';
}

/** Finds where a problem sits in the source text (1-based), when the config came from a file. */
export type ProblemLocator = (problem: ConfigProblem) => { line: number; column: number } | undefined;

/** Problems placed in their file (when `locate` finds them), in file order. */
export function toDiagnostics(
  problems: readonly ConfigProblem[],
  locate: ProblemLocator | undefined,
): ConfigDiagnostic[] {
  return inFileOrder(
    problems.map((problem): ConfigDiagnostic => {
      const position = locate?.(problem);
      return {
        path: formatPath(problem.path),
        message: problem.message,
        ...(problem.hint === undefined ? {} : { hint: problem.hint }),
        ...(position === undefined ? {} : { line: position.line, column: position.column }),
      };
    }),
  );
}

/**
 * Diagnostics in the order of their file, which reads naturally; those without a position keep their
 * relative order, at the end (the sort is stable).
 */
export function inFileOrder(diagnostics: readonly ConfigDiagnostic[]): ConfigDiagnostic[] {
  return [...diagnostics].sort(
    (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0),
  );
}
