import { stat } from 'node:fs/promises';
import { extname, isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as TsxApi from 'tsx/esm/api';
import { ConfigError } from '../../types/errors.js';

/** A loaded tool module: its namespace, as `import()` returns it. */
export type ToolModule = Record<string, unknown>;

const NATIVE_EXTENSIONS: ReadonlySet<string> = new Set(['.js', '.mjs', '.cjs']);
const TYPESCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(['.ts', '.mts', '.cts']);

/**
 * Imports a custom tool module: JavaScript natively, TypeScript through tsx when it is installed
 * (always then, so the path that runs in production is the one tests exercise, even under a
 * bundler-backed test runner), else through Node's own type stripping where it has it.
 *
 * @param where the config path of the entry's `path` key, e.g. `agents[0].backend.custom_tools[1].path`.
 * @throws ConfigError when the file is missing, has an unsupported extension or fails to load.
 */
export async function importToolModule(
  path: string,
  where: string,
  what = 'custom tool module',
): Promise<ToolModule> {
  if (!isAbsolute(path)) {
    throw new ConfigError(`${where}: the module path must be absolute, got "${path}"`, {
      path: where,
      hint: 'relative paths are resolved against the config file before tools are loaded',
    });
  }
  const kind = await fileKind(path);
  if (kind !== 'file') {
    throw new ConfigError(`${where}: ${kind === 'missing' ? `${what} not found` : 'not a file'}: ${path}`, {
      path: where,
      hint: 'paths are relative to the config file; check the spelling and the folder',
    });
  }
  const extension = extname(path).toLowerCase();
  const typescript = TYPESCRIPT_EXTENSIONS.has(extension);
  if (!typescript && !NATIVE_EXTENSIONS.has(extension)) {
    throw new ConfigError(`${where}: unsupported ${what} type "${extension || path}": ${path}`, {
      path: where,
      hint: 'use a .js, .mjs, .cjs, .ts, .mts or .cts file',
    });
  }
  const url = pathToFileURL(path).href;
  try {
    const loaded: unknown = typescript ? await importTypeScript(url) : await import(url);
    return loaded as ToolModule;
  } catch (error) {
    if (error instanceof TsxMissing) {
      throw new ConfigError(
        `${where}: loading the TypeScript ${what} ${path} needs tsx, which is not installed`,
        {
          path: where,
          hint:
            'install it beside massgen: npm install -g tsx (npm install tsx where massgen is a project ' +
            'dependency), or use Node 22.18 or later, which strips types itself, or compile the module to .js',
        },
      );
    }
    throw new ConfigError(`${where}: cannot load ${path}: ${firstLineOf(error)}`, {
      path: where,
      cause: error,
      hint: 'fix the error in the module (try running it with node or tsx on its own)',
    });
  }
}

/** tsx is not installed and this Node cannot strip types itself. */
class TsxMissing extends Error {}

/**
 * tsx pulls in esbuild (a 12 MB binary), so it is an optional peer dependency, loaded only when a
 * config actually has a TypeScript module. Without it, a Node that strips types itself (22.18+,
 * 23.6+: `process.features.typescript`) imports the file natively.
 */
async function importTypeScript(url: string): Promise<unknown> {
  let tsx: typeof TsxApi;
  try {
    tsx = await import('tsx/esm/api');
  } catch (error) {
    if (!isMissingTsx(error)) throw error;
    if ((process.features as { typescript?: unknown }).typescript) return import(url);
    throw new TsxMissing();
  }
  return tsx.tsImport(url, import.meta.url);
}

/** `import('tsx/…')` failed because the package is absent (the error may arrive wrapped, as `cause`). */
function isMissingTsx(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      current.message.includes("'tsx")
    ) {
      return true;
    }
    current = current.cause;
  }
  return false;
}

async function fileKind(path: string): Promise<'file' | 'missing' | 'other'> {
  try {
    return (await stat(path)).isFile() ? 'file' : 'other';
  } catch {
    return 'missing';
  }
}

/** The line of a load error worth printing: bundlers' "failed with 1 error:" summaries are skipped. */
function firstLineOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/failed with \d+ errors?:$/.test(line));
  const line = lines[0] ?? 'unknown error';
  const name = error instanceof Error ? error.name : '';
  // "Unexpected token" alone does not say it is a syntax error.
  return name !== '' && name !== 'Error' && !line.startsWith(name) ? `${name}: ${line}` : line;
}
