import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';

/** The environment a config is resolved against; passed in so tests never touch `process.env`. */
export type ConfigEnv = Readonly<Record<string, string | undefined>>;

// `$${...}` (escape), `${NAME}` and `${NAME:-default}`.
const REFERENCE = /\$(\$)?\{([^}]*)\}/g;
const NAME_WITH_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in one string. As in the shell, the default applies when
 * the variable is unset or empty. `$${VAR}` is a literal `${VAR}`. Text that only looks like a
 * reference (`${not a name}`) is left alone.
 */
export function interpolateString(text: string, env: ConfigEnv): { value: string; missing: string[] } {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, escaped: string | undefined, inner: string) => {
    if (escaped !== undefined) return whole.slice(1);
    const match = NAME_WITH_DEFAULT.exec(inner);
    if (match === null) return whole;
    const name = match[1] ?? '';
    const fallback = match[2];
    const found = env[name];
    if (fallback !== undefined) return found === undefined || found === '' ? fallback : found;
    if (found === undefined) {
      missing.push(name);
      return '';
    }
    return found;
  });
  return { value, missing };
}

/**
 * Interpolates every string value (not key) in a parsed config, returning a copy. Each unset
 * variable without a default becomes a problem naming the variable and where it was used.
 */
export function interpolateEnv(raw: unknown, env: ConfigEnv): { value: unknown; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const visit = (node: unknown, path: PathSegment[]): unknown => {
    if (typeof node === 'string') {
      const { value, missing } = interpolateString(node, env);
      for (const name of missing) {
        problems.push({
          path,
          message: `${formatPath(path) || 'config'}: environment variable ${name} is not set`,
          hint: `set ${name} in the environment or in .env, or write \${${name}:-default}`,
        });
      }
      return value;
    }
    if (Array.isArray(node)) return node.map((item, index) => visit(item, [...path, index]));
    if (typeof node === 'object' && node !== null) {
      // fromEntries defines own properties, so a `__proto__` key stays an ordinary (rejected) key.
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, visit(item, [...path, key])]),
      );
    }
    return node;
  };
  return { value: visit(raw, []), problems };
}
