import { deepFreeze } from './deep-freeze.js';
import {
  ConfigValidationError,
  toDiagnostics,
  type ConfigDiagnostic,
  type ProblemLocator,
} from './diagnostics.js';
import { interpolateEnv, type ConfigEnv } from './interpolate-env.js';
import { readMassGenFormat } from './massgen-compat.js';
import { agentListProblems, MassGenConfigSchema, type MassGenConfig } from './schema.js';
import { schemaTree, type SchemaNode } from './schema-keys.js';
import { DEFAULT_MESSAGE, describeValue, issuesToProblems, withPath } from './zod-issues.js';
import { isRecord as isMapping } from '../util/guards.js';

export interface ParseConfigOptions {
  /** Values for `${VAR}` references. */
  env: ConfigEnv;
  /** The file name to prefix messages with, when the config came from a file. */
  source?: string;
  /** The working directory, for MassGen's `${cwd}` placeholder. */
  cwd?: string;
}

/** What the MassGen compatibility pass said about each config it read (shown as warnings). */
const notesByConfig = new WeakMap<object, readonly ConfigDiagnostic[]>();

/**
 * The warnings about a parsed config: MassGen keys it accepted but handles differently or not at all.
 * Empty for a config in massgen's own format.
 */
export function configNotes(config: MassGenConfig): readonly ConfigDiagnostic[] {
  return notesByConfig.get(config) ?? [];
}

export type { ProblemLocator } from './diagnostics.js';

export interface CheckConfigOptions extends ParseConfigOptions {
  locate?: ProblemLocator;
}

// Built on the first invalid config only: generating the JSON Schema it reads costs ~10 ms.
let tree: SchemaNode | undefined;
const schemaKeys = (): SchemaNode => (tree ??= schemaTree(MassGenConfigSchema));

/** True when `inner` is `outer` or lies beneath it. */
const within = (inner: readonly (string | number)[], outer: readonly (string | number)[]): boolean =>
  outer.length <= inner.length && outer.every((segment, index) => inner[index] === segment);

/**
 * Validates a parsed config without throwing: every problem is returned. `config` is present
 * exactly when there are no diagnostics.
 */
export function checkConfig(
  raw: unknown,
  options: CheckConfigOptions,
): { config?: MassGenConfig; diagnostics: ConfigDiagnostic[]; warnings: ConfigDiagnostic[] } {
  if (!isMapping(raw)) {
    const message =
      raw === null || raw === undefined
        ? 'the config is empty: it needs an "agents:" list or a single "agent:"'
        : `the config must be a mapping with an "agents:" or "agent:" key at the top level, got ${describeValue(raw)}: is this a massgen config file?`;
    return { diagnostics: [{ path: '', message }], warnings: [] };
  }
  const compat = readMassGenFormat(raw, options.cwd === undefined ? {} : { cwd: options.cwd });
  const warnings = toDiagnostics(compat.notes, options.locate);
  const interpolated = interpolateEnv(compat.value, options.env);
  const result = MassGenConfigSchema.safeParse(interpolated.value, {
    error: () => DEFAULT_MESSAGE,
    reportInput: true,
  });
  if (result.success && interpolated.problems.length === 0) {
    const config = deepFreeze(result.data);
    notesByConfig.set(config, warnings);
    return { config, diagnostics: [], warnings };
  }
  const envProblems = interpolated.problems;
  const schemaProblems = result.success
    ? []
    : issuesToProblems(result.error.issues, {
        tree: schemaKeys(),
        data: interpolated.value,
        raw: compat.value,
      }).filter(
        // A value that lost its variable is already reported; its knock-on errors would only confuse.
        (problem) => !envProblems.some((envProblem) => within(problem.path, envProblem.path)),
      );
  // zod skips refinements after some issues (e.g. a non-integer), so run the cross-key checks here too.
  const seen = new Set(schemaProblems.map((problem) => problem.message));
  const listProblems = agentListProblems(interpolated.value)
    .map((problem) => ({ ...problem, message: withPath(problem.path, problem.message) }))
    .filter((problem) => !seen.has(problem.message));
  return {
    diagnostics: toDiagnostics([...envProblems, ...schemaProblems, ...listProblems], options.locate),
    warnings,
  };
}

/**
 * Turns a parsed config (from YAML, JSON or code) into a validated, normalised, deeply frozen
 * {@link MassGenConfig}: `${VAR}` references are resolved from `options.env`, then the schema is applied.
 *
 * @throws {ConfigValidationError} listing every problem; its message describes the first one.
 */
export function parseConfig(raw: unknown, options: ParseConfigOptions): MassGenConfig {
  const { config, diagnostics } = checkConfig(raw, options);
  if (config === undefined) throw new ConfigValidationError(diagnostics, { source: options.source });
  return config;
}
