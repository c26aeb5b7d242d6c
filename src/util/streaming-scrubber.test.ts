import { describe, expect, it } from 'vitest';
import { createSecretScrubber, SECRET_MASK, URL_MATCH_MAX, type SecretScrubber } from './secret-scrubber.js';

/** A small deterministic PRNG (mulberry32), so every failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `text` at random points (pieces of 0 to `max` characters, empty pieces included). */
function chunked(text: string, random: () => number, max = 9): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length;) {
    const size = Math.floor(random() * (max + 1));
    pieces.push(text.slice(i, i + size));
    i += size;
  }
  return pieces;
}

/** Streams the pieces; returns what was shown, piece by piece, then the flush. */
function streamed(scrubber: SecretScrubber, pieces: readonly string[]): string[] {
  const stream = scrubber.stream();
  return [...pieces.map((p) => stream.push(p)), stream.flush()];
}

/**
 * An independent statement of what `text` does: every character covered by an occurrence of a secret,
 * or by a tail of 6 or more characters that is the beginning of one, is masked (each stretch of covered
 * characters is one mask), then URL passwords are masked.
 */
function oracle(secrets: readonly string[], input: string): string {
  const covered = new Array<boolean>(input.length).fill(false);
  for (const secret of secrets.filter((s) => s.length >= 6)) {
    for (let at = input.indexOf(secret); at !== -1; at = input.indexOf(secret, at + 1))
      for (let i = at; i < at + secret.length; i++) covered[i] = true;
    for (let length = 6; length < secret.length && length <= input.length; length++)
      if (input.endsWith(secret.slice(0, length)))
        for (let i = input.length - length; i < input.length; i++) covered[i] = true;
  }
  let masked = '';
  for (let i = 0; i < input.length; i++) {
    if (!covered[i]) masked += input[i];
    else if (i === 0 || !covered[i - 1]) masked += SECRET_MASK;
  }
  return masked.replace(
    /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/?#@:]{0,128}:)([^\s/?#@]{1,512})@/gi,
    `$1${SECRET_MASK}@`,
  );
}

const KEY = 'sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const secrets = [KEY, 'hunter2hunter2', 'abcdefgh', 'efghijkl', 'aaaaaa', 'tok:en@x'];
const scrubber = createSecretScrubber(secrets);

describe('SecretScrubber.text', () => {
  it('masks overlapping secrets as one stretch, leaving no part of either', () => {
    expect(scrubber.text('x abcdefghijkl y')).toBe(`x ${SECRET_MASK} y`);
    expect(scrubber.text('aaaaaaaaa')).toBe(SECRET_MASK);
    expect(scrubber.text(`${KEY}${KEY} and ${KEY}`)).toBe(`${SECRET_MASK} and ${SECRET_MASK}`);
  });

  it('agrees with an independent statement of its rules', () => {
    const random = prng(7);
    for (let i = 0; i < 300; i++) {
      const text = randomText(random);
      expect(scrubber.text(text), JSON.stringify(text)).toBe(oracle(secrets, text));
    }
  });

  it('does not mask URL passwords longer than the bound (a stream must decide within a bounded stretch)', () => {
    const long = 'p'.repeat(513);
    expect(scrubber.text(`https://u:${long}@h`)).toBe(`https://u:${long}@h`);
    expect(scrubber.text(`https://u:${'p'.repeat(512)}@h`)).toBe(`https://u:${SECRET_MASK}@h`);
  });
});

/** Text made of secrets, their fragments, URL parts, words and whitespace: where the edge cases are. */
function randomText(random: () => number): string {
  const parts = [
    KEY,
    KEY.slice(0, 8),
    KEY.slice(8, 30),
    'hunter2',
    'hunter2hunter2',
    'abcdefgh',
    'efghijkl',
    'abcdefghijkl',
    'aaaa',
    'aaaaaaa',
    'tok:en@x',
    'https://',
    'postgres://alice:',
    'redis://:',
    'pw0rd',
    '@db:5432/x',
    '@',
    ':',
    '/',
    '://',
    'user',
    ' ',
    '\n',
    'hello',
    'x',
    '*',
    'secret',
  ];
  let text = '';
  const count = 1 + Math.floor(random() * 14);
  for (let i = 0; i < count; i++) text += parts[Math.floor(random() * parts.length)];
  return text;
}

describe('SecretScrubber.stream', () => {
  it('shows exactly text(whole) for any chunking (property over random texts and chunkings, seeded)', () => {
    const random = prng(20240611);
    for (let i = 0; i < 2_000; i++) {
      const text = randomText(random);
      const pieces = chunked(text, random, 1 + Math.floor(random() * 12));
      const shown = streamed(scrubber, pieces);
      expect(shown.join(''), JSON.stringify(pieces)).toBe(scrubber.text(text));
      // No prefix of what was shown may ever contain a secret, nor a piece of one that later got masked.
      expect(shown.join('')).not.toContain(KEY);
    }
  });

  it('agrees with text(whole) on long runs near the URL bound too (seeded)', () => {
    const random = prng(99);
    const parts = [
      'https://u:',
      'x://',
      ':',
      '@h ',
      '@',
      ' ',
      'p'.repeat(300),
      'q'.repeat(511),
      'a'.repeat(40),
    ];
    for (let i = 0; i < 300; i++) {
      let text = '';
      for (let j = 0, count = 1 + Math.floor(random() * 8); j < count; j++)
        text += parts[Math.floor(random() * parts.length)];
      const shown = streamed(scrubber, chunked(text, random, 1 + Math.floor(random() * 200)));
      expect(shown.join('')).toBe(scrubber.text(text));
    }
  });

  it('never shows any part of a secret streamed in 8-character pieces, wherever it starts', () => {
    for (let offset = 0; offset < 8; offset++) {
      const text = `${'x'.repeat(offset)}key=${KEY} done`;
      const pieces = text.match(/[\s\S]{1,8}/g) ?? [];
      const shown = streamed(scrubber, pieces);
      expect(shown.join('')).toBe(`${'x'.repeat(offset)}key=${SECRET_MASK} done`);
      for (const piece of shown)
        for (const fragment of fragments(KEY, 4)) expect(piece).not.toContain(fragment);
    }
  });

  it('a secret at a piece boundary, or cut off by the end of the stream, never leaks', () => {
    const stream = scrubber.stream();
    expect(stream.push(`before ${KEY.slice(0, 20)}`)).toBe('before ');
    expect(stream.heldBack).toBe(20);
    expect(stream.push(KEY.slice(20))).toBe(SECRET_MASK);
    expect(stream.push(' after')).toBe(' after');
    expect(stream.flush()).toBe('');
    // A stream cut off mid-secret (a turn aborted, restarted, timed out) masks the part that came…
    const cut = scrubber.stream();
    expect(cut.push(`x ${KEY.slice(0, 12)}`)).toBe('x ');
    expect(cut.flush()).toBe(SECRET_MASK);
    // …unless it is too short to be one (ordinary text may end like the start of a secret).
    const short = scrubber.stream();
    expect(short.push('it is sk-t')).toBe('it is ');
    expect(short.flush()).toBe('sk-t');
  });

  it('holds back only what could still become a secret: ordinary text flows at once', () => {
    const stream = scrubber.stream();
    expect(stream.push('The answer is 42.\n')).toBe('The answer is 42.\n');
    expect(stream.push('No keys in 42')).toBe('No keys in 42');
    expect(stream.heldBack).toBe(0);
    expect(stream.push(' s')).toBe(' ');
    expect(stream.heldBack).toBe(1);
    expect(stream.push('o')).toBe('so');
  });

  it('masks a URL password split across pieces and shows the rest of the URL', () => {
    const text = 'connect to postgres://alice:s3cr3t-pass@db.internal:5432/app now';
    for (let size = 1; size <= 9; size++) {
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
      const shown = streamed(scrubber, pieces);
      expect(shown.join('')).toBe(`connect to postgres://alice:${SECRET_MASK}@db.internal:5432/app now`);
      expect(shown.join('')).not.toContain('s3cr3t');
      for (const piece of shown) expect(piece).not.toMatch(/s3c|pass@/);
    }
    // The scheme and user are shown while the password is still arriving; the password is held.
    const stream = scrubber.stream();
    expect(stream.push('see https://bob:')).toBe('see https://bob:');
    expect(stream.push('pa55')).toBe('');
    expect(stream.push('word@example.org/x')).toBe(`${SECRET_MASK}@example.org/x`);
  });

  it('bounds what a URL-like run holds back, and a run that cannot be a URL with a password flows', () => {
    const stream = scrubber.stream();
    let shown = stream.push('https://u:');
    for (let i = 0; i < 2_000; i++) shown += stream.push('q');
    expect(stream.heldBack).toBeLessThan(URL_MATCH_MAX);
    expect(shown + stream.flush()).toBe(`https://u:${'q'.repeat(2_000)}`);
    const plain = scrubber.stream();
    expect(plain.push('https://example.org/path?a=1')).toBe('https://example.org/path?a=1');
    expect(plain.push(`${'b'.repeat(1_000)}`)).toBe('b'.repeat(1_000));
  });

  it('a forced cut inside a long run keeps the character before it, so `\\b` sees what the whole text sees', () => {
    // No word boundary before the scheme: the whole text has no URL password to mask. A stream that cut
    // the run 31 characters before `://` must not see a fresh start there.
    const text = `${'b'.repeat(700)}://${'u'.repeat(128)}:${'p'.repeat(512)}@h`;
    expect(scrubber.text(text)).toBe(text);
    expect(streamed(scrubber, [...text]).join('')).toBe(text);
  });

  it('flush ends the stream and starts afresh: nothing is lost and nothing carries over', () => {
    const stream = scrubber.stream();
    expect(stream.push(`tail ${KEY.slice(0, 4)}`)).toBe('tail ');
    expect(stream.heldBack).toBe(4);
    expect(stream.flush()).toBe(KEY.slice(0, 4));
    expect(stream.heldBack).toBe(0);
    expect(stream.push(KEY.slice(4))).toBe(KEY.slice(4));
    expect(stream.flush()).toBe('');
  });

  it('a scrubber without secrets streams everything at once except an open URL password', () => {
    const none = createSecretScrubber([]);
    const stream = none.stream();
    expect(stream.push('plain text ')).toBe('plain text ');
    expect(stream.push('ftp://me:')).toBe('ftp://me:');
    expect(stream.push('pw1')).toBe('');
    expect(stream.push('@host')).toBe(`${SECRET_MASK}@host`);
  });
});

/** Every substring of `secret` of `length` characters. */
function fragments(secret: string, length: number): string[] {
  return Array.from({ length: secret.length - length + 1 }, (_, i) => secret.slice(i, i + length));
}
