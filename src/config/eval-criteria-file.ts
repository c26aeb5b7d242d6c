import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { EvalCriteriaSchema, type EvalCriteria } from '../types/criteria-schema.js';
import { ConfigValidationError, toDiagnostics } from './diagnostics.js';
import { schemaTree, type SchemaNode } from './schema-keys.js';
import { parseYamlSource } from './yaml-source.js';
import { DEFAULT_MESSAGE, issuesToProblems } from './zod-issues.js';
import { errorCode } from '../util/guards.js';

/**
 * `--eval-criteria FILE`: the checklist's criteria from a YAML or JSON file — an `aspiration` and 4–7
 * `criteria`, each with `text`, `tier` (`primary`, `standard`, `stretch`) and `anti_patterns`:
 *
 * ```yaml
 * aspiration: A migration plan the on-call team can run without surprises.
 * criteria:
 *   - text: Every step can be rolled back.
 *     tier: primary
 *     anti_patterns: [irreversible data changes]
 * ```
 *
 * Problems are reported like a config's: every one at once, each with its file:line:column.
 */

let tree: SchemaNode | undefined;

function readProblem(error: unknown, absolute: string): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return `eval criteria file not found: ${absolute}`;
  if (code === 'EISDIR') return `eval criteria path is a directory, not a file: ${absolute}`;
  return `cannot read eval criteria file ${absolute}: ${typeof code === 'string' ? code : String(error)}`;
}

/**
 * Reads and validates an eval-criteria file (relative to `cwd`).
 * @throws {ConfigValidationError} listing every problem with its position in the file.
 */
export function loadEvalCriteriaFile(path: string, cwd: string): EvalCriteria {
  const absolute = resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    throw new ConfigValidationError([{ path: '', message: readProblem(error, absolute) }]);
  }
  const parsed = parseYamlSource(text, extname(absolute).toLowerCase() === '.json' ? 'JSON' : 'YAML');
  if (parsed.diagnostics.length > 0)
    throw new ConfigValidationError(
      parsed.diagnostics.map((d) =>
        d.message.startsWith('the config file is empty')
          ? { ...d, message: 'the eval criteria file is empty: it needs "aspiration:" and "criteria:"' }
          : d,
      ),
      { source: path },
    );
  const result = EvalCriteriaSchema.safeParse(parsed.data, {
    error: () => DEFAULT_MESSAGE,
    reportInput: true,
  });
  if (result.success) return result.data;
  const problems = issuesToProblems(result.error.issues, {
    tree: (tree ??= schemaTree(EvalCriteriaSchema)),
    data: parsed.data,
    raw: parsed.data,
  });
  const diagnostics = toDiagnostics(problems, parsed.locate);
  throw new ConfigValidationError(diagnostics, { source: path });
}
