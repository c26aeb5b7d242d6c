import { spawnSync } from 'node:child_process';
import type { ConfigDiagnostic, MassGenConfig } from '../config/index.js';
import type { Env } from '../types/env.js';
import { packagePath } from '../util/package-root.js';

/** massgen's Python bridge (`python/` beside `src/` and `dist/`), whose table says what each framework imports. */
const PYTHON_DIR = packagePath('python');

/** Asks `python` (with this environment's PYTHONPATH) whether it finds a framework's module, without importing it. */
const FRAMEWORK_CHECK = [
  'import importlib.util, json, sys',
  'sys.path.insert(0, sys.argv[1])',
  'from massgen_bridge.agents import FRAMEWORKS',
  'need = FRAMEWORKS.get(sys.argv[2])',
  'found = need is None or importlib.util.find_spec(need[0]) is not None',
  'print(json.dumps(None if found else {"module": need[0], "package": need[1]}))',
].join('\n');

/** A framework's module and the pip package that has it. */
export interface MissingFramework {
  module: string;
  package: string;
}

/**
 * The module and pip package a Python framework needs when `python` cannot import it (what the run's
 * bridge would stop on, said before the run); null when it can, or when the check itself cannot run.
 * `checked` remembers the answers of one validation.
 */
export function missingFramework(
  python: string,
  framework: string,
  where: { env: Env; cwd: string },
  checked: Map<string, MissingFramework | null>,
): MissingFramework | null {
  const key = `${python}\u0000${framework}`;
  if (checked.has(key)) return checked.get(key)!;
  const run = spawnSync(python, ['-c', FRAMEWORK_CHECK, PYTHON_DIR, framework], {
    cwd: where.cwd,
    env: Object.fromEntries(
      Object.entries(where.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    encoding: 'utf8',
    timeout: 60_000,
  });
  let missing: MissingFramework | null = null;
  try {
    if (run.status === 0) missing = JSON.parse(run.stdout.trim()) as typeof missing;
  } catch {
    missing = null;
  }
  checked.set(key, missing);
  return missing;
}

/** The warning for something at `where` that runs in Python, when the interpreter is not found. */
export function pythonMissing(
  config: MassGenConfig,
  where: string,
  notFound: (python: string) => string,
): ConfigDiagnostic {
  const python = config.python ?? 'python3';
  return {
    path: where,
    message: `${where}: ${notFound(python)}${python.includes('/') ? '' : ' on PATH'}`,
    hint: 'install Python 3.9 or newer, or set python: to the interpreter',
  };
}
