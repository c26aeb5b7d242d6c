import { isPair, isScalar, parseDocument, visit } from 'yaml';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import { closestMatch } from '../util/closest-match.js';
import { packagePath } from '../util/package-root.js';

/** `--config @examples/basic/three_agents` names a config bundled with the package. */
export const EXAMPLE_PREFIX = '@examples/';

/** One bundled example config. */
export interface ExampleInfo {
  /** Path under `examples/` without the extension, with `/` separators: `basic/three_agents`. */
  name: string;
  /** The file's leading comment lines, joined into one paragraph ('' when it has none). */
  description: string;
  /** Absolute path of the file. */
  path: string;
}

const EXTENSIONS = ['.yaml', '.yml'];

/** True when `ref` uses the `@examples/NAME` form (for `--config` and `--validate`). */
export function isExampleRef(ref: string): boolean {
  return ref.startsWith(EXAMPLE_PREFIX);
}

let cachedDir: string | undefined;

/**
 * The package's `examples/` folder (beside its package.json).
 *
 * @throws {ConfigError} when the folder is missing (an incomplete installation).
 */
export function examplesDir(): string {
  if (cachedDir !== undefined) return cachedDir;
  const candidate = packagePath('examples');
  if (!isDirectory(candidate))
    throw new ConfigError('cannot find the bundled examples/ folder', {
      hint: 'reinstall massgen: its package ships the examples/ folder',
    });
  cachedDir = candidate;
  return candidate;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The leading `#` comment lines of a YAML file, joined into one paragraph. */
export function leadingComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' && lines.length === 0) continue;
    if (!trimmed.startsWith('#')) break;
    const content = trimmed.replace(/^#+\s?/, '').trim();
    if (content !== '') lines.push(content);
  }
  return lines.join(' ');
}

/** Every bundled example, sorted by name (folders first listed as `folder/name`). */
export function listExamples(): ExampleInfo[] {
  const root = examplesDir();
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) =>
    EXTENSIONS.includes(path.extname(file).toLowerCase()),
  );
  return files
    .map((file) => {
      const absolute = path.join(root, file);
      return {
        name: exampleName(file),
        description: leadingComment(readFileSync(absolute, 'utf8')),
        path: absolute,
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `basic\three_agents.yaml` → `basic/three_agents`. */
function exampleName(relativeFile: string): string {
  const posix = relativeFile.split(path.sep).join('/');
  return posix.slice(0, posix.length - path.extname(posix).length);
}

/** What the user typed → the name it should match: no `@examples/`, no `./`, no extension. */
function normalise(ref: string): string {
  let name = ref.trim().replaceAll('\\', '/');
  if (name.startsWith(EXAMPLE_PREFIX)) name = name.slice(EXAMPLE_PREFIX.length);
  name = name.replace(/^(\.\/)+/, '').replace(/^\/+/, '');
  const ext = path.posix.extname(name).toLowerCase();
  return EXTENSIONS.includes(ext) ? name.slice(0, name.length - ext.length) : name;
}

/** The closest example name to `wanted`: same file name in another folder first, then by spelling. */
function suggest(wanted: string, names: readonly string[]): string | undefined {
  const base = wanted.split('/').at(-1) ?? wanted;
  const sameBase = names.filter((name) => name.split('/').at(-1) === base);
  if (sameBase.length > 0) return sameBase[0];
  const bySpelling = closestMatch(wanted, names);
  if (bySpelling !== undefined) return bySpelling;
  const byBase = closestMatch(
    base,
    names.map((name) => name.split('/').at(-1) ?? name),
  );
  return byBase === undefined
    ? undefined
    : names.find((name) => name.endsWith(`/${byBase}`) || name === byBase);
}

/**
 * The absolute path of a bundled example. `ref` is `@examples/NAME` or a bare `NAME`, with or without
 * `.yaml`: `@examples/basic/three_agents`, `basic/three_agents.yaml`. Only listed files match, so a
 * reference can never reach outside `examples/`.
 *
 * @throws {ConfigError} for an unknown name, suggesting the closest one.
 */
export function resolveExampleRef(ref: string): string {
  const wanted = normalise(ref);
  const examples = listExamples();
  const found = examples.find((example) => example.name === wanted);
  if (found) return found.path;
  const names = examples.map((example) => example.name);
  const suggestion = wanted === '' ? undefined : suggest(wanted, names);
  const prefix = isExampleRef(ref.trim()) ? EXAMPLE_PREFIX : '';
  throw new ConfigError(
    `unknown example "${ref.trim()}"${suggestion === undefined ? '' : ` — did you mean "${prefix}${suggestion}"?`}`,
    { hint: 'massgen --list-examples lists every bundled example' },
  );
}

/** Extensions of the bundled data files: questions for `massgen batch --input` and `massgen eval --dataset`. */
const DATA_EXTENSIONS = ['.jsonl'];

/**
 * The absolute path of a bundled data file: `@examples/demo/qa.jsonl` (or without `.jsonl`), for
 * `massgen batch --input` and `massgen eval --dataset`. As with configs, only files listed under
 * `examples/` match, so a reference can never reach outside it.
 *
 * @throws {ConfigError} for an unknown name, listing the data files there are.
 */
export function resolveExampleDataRef(ref: string): string {
  const root = examplesDir();
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => DATA_EXTENSIONS.includes(path.extname(file).toLowerCase()))
    .map((file) => ({ name: file.split(path.sep).join('/'), path: path.join(root, file) }));
  const trimmed = ref.trim();
  const wanted = isExampleRef(trimmed) ? trimmed.slice(EXAMPLE_PREFIX.length) : trimmed;
  const found = files.find((file) => file.name === wanted || file.name === `${wanted}.jsonl`);
  if (found) return found.path;
  const names = files.map((file) => `${EXAMPLE_PREFIX}${file.name}`).sort();
  throw new ConfigError(`unknown example data file "${ref.trim()}"`, {
    hint: `the bundled ones: ${names.join(', ')}`,
  });
}

/**
 * The text of a bundled example (see {@link resolveExampleRef} for the accepted names).
 *
 * @throws {ConfigError} for an unknown name.
 */
export function readExample(ref: string): string {
  return readFileSync(resolveExampleRef(ref), 'utf8');
}

/** `${VAR:-default}` with a relative default: the default is what must survive the copy. */
const VAR_WITH_DEFAULT = /^\$\{([A-Za-z_][A-Za-z0-9_]*):-(.*)\}$/;

/**
 * The text of a bundled example made to work wherever it is copied (`massgen --example NAME > x.yaml`):
 * file references that are relative to the example — custom tool modules and context paths, also as
 * the default of a `${VAR:-default}` — become absolute paths into the installed examples, so the copy
 * validates in any folder. Comments and layout are kept.
 *
 * @throws {ConfigError} for an unknown name.
 */
export function exampleForCopy(ref: string): string {
  const file = resolveExampleRef(ref);
  const document = parseDocument(readFileSync(file, 'utf8'));
  const absolute = (value: string): string => {
    const withDefault = VAR_WITH_DEFAULT.exec(value);
    if (withDefault) return `\${${withDefault[1]}:-${absolute(withDefault[2] ?? '')}}`;
    if (value === '' || value.includes('${') || path.isAbsolute(value)) return value;
    return path.resolve(path.dirname(file), value);
  };
  visit(document, {
    Pair(_key, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.value !== 'path' || !isScalar(pair.value)) return;
      const owner = ancestors.filter((node) => isPair(node)).at(-1);
      const section = owner && isPair(owner) && isScalar(owner.key) ? owner.key.value : null;
      if (section !== 'custom_tools' && section !== 'context_paths') return;
      if (typeof pair.value.value === 'string') pair.value.value = absolute(pair.value.value);
    },
  });
  return document.toString({ lineWidth: 0 });
}
