/**
 * One scrubber per run, built from every secret the run knows, applied on every path to the outside:
 * events (and so the screen, the logs and the web), tool results before a model reads them, error
 * messages and crash traces.
 */
export interface SecretScrubber {
  /** The text with every known secret, and the password of any `scheme://user:pass@host` URL, as `***`. */
  text(text: string): string;
  /**
   * The value with {@link SecretScrubber.text} applied to every string inside plain objects and arrays.
   * Returns the very same value when nothing needed scrubbing, so clean events cost no copy.
   */
  deep<T>(value: T): T;
  /** How many distinct secrets it knows (for diagnostics; never the secrets themselves). */
  readonly size: number;
}

export const SECRET_MASK = '***';

/** Shorter values would mask ordinary words ("gpt", "true") all over the output. */
export const MIN_SECRET_LENGTH = 6;

// `scheme://user:password@host`: the password is replaced, the user stays (it tells which account).
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)([^\s/?#@]+)@/gi;

/** Builds a scrubber from secret values (those shorter than {@link MIN_SECRET_LENGTH} are ignored). */
export function createSecretScrubber(secrets: Iterable<string>): SecretScrubber {
  // Longest first, so a secret that contains another is masked whole.
  const known = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  const text = (input: string): string => {
    let out = input;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
    return out.includes('://') ? out.replace(URL_PASSWORD, `$1${SECRET_MASK}@`) : out;
  };
  const visit = (node: unknown, seen: WeakMap<object, unknown>): unknown => {
    if (typeof node === 'string') return text(node);
    if (typeof node !== 'object' || node === null) return node;
    const done = seen.get(node);
    if (done !== undefined) return done;
    if (Array.isArray(node)) {
      seen.set(node, node);
      let copy: unknown[] | null = null;
      node.forEach((item, i) => {
        const next = visit(item, seen);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      seen.set(node, copy ?? node);
      return copy ?? node;
    }
    const prototype: unknown = Object.getPrototypeOf(node);
    if (prototype !== Object.prototype && prototype !== null) return node;
    seen.set(node, node);
    let copy: Record<string, unknown> | null = null;
    for (const [key, item] of Object.entries(node)) {
      const next = visit(item, seen);
      if (next !== item) (copy ??= { ...(node as Record<string, unknown>) })[key] = next;
    }
    seen.set(node, copy ?? node);
    return copy ?? node;
  };
  return {
    text,
    deep: <T>(value: T): T => visit(value, new WeakMap()) as T,
    size: known.length,
  };
}

/** A scrubber that knows no secret values (it still masks URL passwords). */
export const urlPasswordScrubber: SecretScrubber = createSecretScrubber([]);
