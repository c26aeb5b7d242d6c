import { createSecretScrubber, SECRET_MASK } from '../util/secret-scrubber.js';

/** Keys whose string values are secrets wherever they appear (`api_key`, `apiKey`, `Authorization`, …). */
export const SECRET_KEY_PATTERN = /api[_-]?key|token|secret|password|authorization/i;

/** Maps whose every value is a secret, whatever its key (`headers: { X-Tenant-Token: … }`). */
const SECRET_MAP_PATTERN = /^(http_)?headers$/i;

/**
 * A deep copy of `value` that is safe to write to logs and metadata files:
 * - a string under a secret-looking key becomes `"***"` (empty strings stay, so "no key" stays visible);
 * - any occurrence of one of `secretValues` (those of 6+ characters) inside any string becomes `***`,
 *   which catches secrets that ended up in URLs, headers or messages.
 *
 * Only plain objects and arrays are copied; other objects are passed through as they are.
 */
export function maskSecrets(value: unknown, secretValues: readonly string[] = []): unknown {
  const maskText = createSecretScrubber(secretValues).text;
  const seen = new WeakMap<object, unknown>();

  const visit = (node: unknown, secretKey: boolean): unknown => {
    if (typeof node === 'string') return secretKey && node !== '' ? SECRET_MASK : maskText(node);
    if (typeof node !== 'object' || node === null) return node;
    const copied = seen.get(node);
    if (copied !== undefined) return copied;
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      seen.set(node, out);
      for (const item of node) out.push(visit(item, secretKey));
      return out;
    }
    const prototype: unknown = Object.getPrototypeOf(node);
    if (prototype !== Object.prototype && prototype !== null) return node;
    const out: Record<string, unknown> = {};
    seen.set(node, out);
    for (const [key, item] of Object.entries(node)) {
      Object.defineProperty(out, key, {
        value: visit(item, SECRET_KEY_PATTERN.test(key) || SECRET_MAP_PATTERN.test(key)),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return visit(value, false);
}
