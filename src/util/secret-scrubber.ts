/**
 * One scrubber per run, built from every secret the run knows, applied on every path to the outside:
 * events (and so the screen, the logs and the web), tool results before a model reads them, error
 * messages and crash traces. Text that arrives in pieces (a model's streamed deltas) goes through
 * {@link SecretScrubber.stream}, which never lets a secret out, not even in part.
 */
import { mapPlainTree } from './map-plain-tree.js';

export interface SecretScrubber {
  /**
   * The text with every known secret, and the password of any `scheme://user:pass@host` URL, as `***`.
   * Every occurrence of every secret is found in the original text (overlapping ones too); each
   * stretch of text they cover becomes one `***`. So does a text's tail of at least
   * {@link MIN_SECRET_LENGTH} characters that is the beginning of a secret (a text cut off mid-secret).
   */
  text(text: string): string;
  /**
   * The value with {@link SecretScrubber.text} applied to every string inside plain objects and arrays.
   * Returns the very same value when nothing needed scrubbing, so clean events cost no copy.
   */
  deep<T>(value: T): T;
  /**
   * A scrubber for one stream of text arriving in pieces. Whatever the pieces, the concatenation of
   * what it returns equals {@link SecretScrubber.text} of the whole text.
   */
  stream(): TextStreamScrubber;
  /** How many distinct secrets it knows (for diagnostics; never the secrets themselves). */
  readonly size: number;
}

/**
 * One text stream being scrubbed. It holds back only what could still turn out to be part of a secret
 * or of a URL password: the tail that is the beginning of a known secret (at most the longest secret
 * minus one character), and the password of a `scheme://user:` URL whose end has not arrived yet (at
 * most {@link URL_MATCH_MAX} characters without whitespace).
 */
export interface TextStreamScrubber {
  /** Takes the next piece; returns the text that is now safe to show (often all of it, maybe ''). */
  push(piece: string): string;
  /** Ends the stream: returns everything held back, scrubbed. The scrubber starts afresh after it. */
  flush(): string;
  /** Characters received but not yet returned. */
  readonly heldBack: number;
}

export const SECRET_MASK = '***';

/** Shorter values would mask ordinary words ("gpt", "true") all over the output. */
export const MIN_SECRET_LENGTH = 6;

// `scheme://user:password@host`: the password is replaced, the user stays (it tells which account).
// Every part is bounded so a stream knows after a bounded stretch whether a password was there. A match
// holds no whitespace, and no part can contain the character that ends it (the scheme and the user stop
// at `:`, the password at `@`), so a match is decided by the text it spans.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/?#@:]{0,128}:)([^\s/?#@]{1,512})@/gi;
/** The longest text {@link URL_PASSWORD} can match. */
export const URL_MATCH_MAX = 32 + 3 + 128 + 1 + 512 + 1;
const USER_CHAR = /[^\s/?#@:]/;
const WHITESPACE = /\s/;

/**
 * Where the earliest tail of `text` that is the beginning of a secret (but not a whole one) starts;
 * the text's length when there is none.
 */
function partialSecretStart(text: string, secrets: readonly string[]): number {
  const n = text.length;
  let start = n;
  for (const secret of secrets) {
    for (let length = Math.min(secret.length - 1, n); length > 0 && n - length < start; length--) {
      if (text.charCodeAt(n - length) === secret.charCodeAt(0) && secret.startsWith(text.slice(n - length))) {
        start = n - length;
        break;
      }
    }
  }
  return start;
}

/**
 * Stage one: the known secrets. `push` returns the prefix of the masked text that no later piece can
 * change: everything before the earliest tail that is the beginning of a secret.
 */
class SecretStage {
  private buffer = '';
  /** Characters at the start of the buffer covered by a secret that began before it. */
  private coveredUntil = 0;
  /** The last output was a mask whose stretch may go on (touching secrets share one mask). */
  private inMask = false;

  constructor(private readonly secrets: readonly string[]) {}

  get heldBack(): number {
    return this.buffer.length;
  }

  push(piece: string): string {
    this.buffer += piece;
    return this.emit(partialSecretStart(this.buffer, this.secrets), false);
  }

  flush(): string {
    const out = this.emit(this.buffer.length, true);
    this.coveredUntil = 0;
    this.inMask = false;
    return out;
  }

  /**
   * Masks and returns the first `stable` characters of the buffer, keeping the rest. At the end of the
   * text, a tail that is the beginning of a secret (a stream cut off mid-secret, a truncated string)
   * is masked too when it is long enough to be one.
   */
  private emit(stable: number, end: boolean): string {
    if (stable <= 0) return '';
    const buffer = this.buffer;
    const found: [number, number][] = [];
    for (const secret of this.secrets) {
      for (let at = buffer.indexOf(secret); at !== -1 && at < stable; at = buffer.indexOf(secret, at + 1))
        found.push([at, at + secret.length]);
    }
    if (end) {
      const partial = partialSecretStart(buffer, this.secrets);
      if (buffer.length - partial >= MIN_SECRET_LENGTH) found.push([partial, buffer.length]);
    }
    let cover = this.coveredUntil;
    let out = '';
    if (found.length === 0 && cover === 0) {
      out = buffer.slice(0, stable);
      this.inMask = false;
    } else {
      found.sort((a, b) => a[0] - b[0]);
      let k = 0;
      let pos = 0;
      while (pos < stable) {
        for (; k < found.length && (found[k] as [number, number])[0] <= pos; k++)
          cover = Math.max(cover, (found[k] as [number, number])[1]);
        if (pos < cover) {
          if (!this.inMask) out += SECRET_MASK;
          this.inMask = true;
          pos = Math.min(cover, stable);
        } else {
          const next = Math.min(k < found.length ? (found[k] as [number, number])[0] : stable, stable);
          out += buffer.slice(pos, next);
          this.inMask = false;
          pos = next;
        }
      }
      for (; k < found.length; k++) cover = Math.max(cover, (found[k] as [number, number])[1]);
    }
    this.buffer = buffer.slice(stable);
    this.coveredUntil = Math.max(0, cover - stable);
    return out;
  }
}

/**
 * Stage two: URL passwords, over the output of stage one. The buffer starts where a scan of the whole
 * text would be at rest (outside any match); `shown` of its characters were already returned unchanged
 * because no password can start before them.
 */
class UrlStage {
  private buffer = '';
  private shown = 0;
  /** The character before the buffer, for `\b` at its start. */
  private before = '';

  get heldBack(): number {
    return this.buffer.length - this.shown;
  }

  push(piece: string): string {
    this.buffer += piece;
    return this.emit(false);
  }

  flush(): string {
    const out = this.emit(true);
    this.before = '';
    return out;
  }

  private emit(final: boolean): string {
    const buffer = this.buffer;
    const n = buffer.length;
    if (n === this.shown && !final) return '';
    // Past the last match, positions before `decided` cannot start one any more: their run of
    // non-whitespace ended, or they are too far back for a match starting there to reach past the
    // buffer's end. A match found in the buffer is final: more text cannot undo it, and no earlier
    // position can become a match that takes it over (that match would have to run through its `@`).
    let decided = n;
    if (!final) {
      let runStart = n;
      while (runStart > 0 && !WHITESPACE.test(buffer.charAt(runStart - 1))) runStart--;
      decided = Math.max(runStart, n - URL_MATCH_MAX + 1);
    }
    const masked: [number, number][] = [];
    let cut = decided;
    if (buffer.includes('://')) {
      const text = this.before + buffer;
      const offset = this.before.length;
      const pattern = new RegExp(URL_PASSWORD.source, URL_PASSWORD.flags);
      pattern.lastIndex = offset;
      for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
        const start = m.index - offset;
        const passwordStart = start + (m[1] as string).length;
        masked.push([passwordStart, passwordStart + (m[2] as string).length]);
        cut = Math.max(cut, start + m[0].length);
      }
    }
    // Beyond `cut`, text can be shown unchanged up to where a password of an undecided match could start.
    let showUntil = cut;
    if (!final) {
      showUntil = n;
      for (let k = buffer.indexOf('://', cut); k !== -1; k = buffer.indexOf('://', k + 1)) {
        let j = k + 3;
        while (j < n && USER_CHAR.test(buffer.charAt(j))) j++;
        if (j === n) break;
        if (buffer.charAt(j) === ':') {
          showUntil = Math.max(cut, j + 1);
          break;
        }
      }
    }
    let out = '';
    let pos = this.shown;
    for (const [from, to] of masked) {
      out += buffer.slice(pos, from) + SECRET_MASK;
      pos = to;
    }
    out += buffer.slice(pos, Math.max(pos, showUntil));
    if (cut > 0) this.before = buffer.charAt(cut - 1);
    this.buffer = buffer.slice(cut);
    this.shown = Math.max(0, Math.max(pos, showUntil) - cut);
    return out;
  }
}

/** Builds a scrubber from secret values (those shorter than {@link MIN_SECRET_LENGTH} are ignored). */
export function createSecretScrubber(secrets: Iterable<string>): SecretScrubber {
  const known = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  const stream = (): TextStreamScrubber => {
    const secretStage = new SecretStage(known);
    const urlStage = new UrlStage();
    return {
      push: (piece) => urlStage.push(secretStage.push(piece)),
      flush: () => {
        const rest = secretStage.flush();
        return urlStage.push(rest) + urlStage.flush();
      },
      get heldBack() {
        return secretStage.heldBack + urlStage.heldBack;
      },
    };
  };
  const text = (input: string): string => {
    // The common case, cheaply: nothing to mask leaves the very same string.
    if (
      !input.includes('://') &&
      !known.some((secret) => input.includes(secret)) &&
      input.length - partialSecretStart(input, known) < MIN_SECRET_LENGTH
    )
      return input;
    const whole = stream();
    return whole.push(input) + whole.flush();
  };
  return {
    text,
    deep: <T>(value: T): T =>
      mapPlainTree(value, text, (node, visit) => {
        let copy: Record<string, unknown> | null = null;
        for (const [key, item] of Object.entries(node)) {
          const next = visit(item);
          if (next !== item) (copy ??= { ...(node as Record<string, unknown>) })[key] = next;
        }
        return copy ?? node;
      }) as T,
    stream,
    size: known.length,
  };
}

/** A scrubber that knows no secret values (it still masks URL passwords). */
export const urlPasswordScrubber: SecretScrubber = createSecretScrubber([]);
