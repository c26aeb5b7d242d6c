import { describe, expect, it } from 'vitest';
import { diffStats, textDiff } from './text-diff.js';

const render = (before: string, after: string) =>
  textDiff(before, after)
    .map((p) => (p.kind === 'added' ? `{+${p.text}+}` : p.kind === 'removed' ? `[-${p.text}-]` : p.text))
    .join('');

describe('textDiff', () => {
  it('shows a one-word change inside a replaced line as that word', () => {
    expect(render('The answer is 41.\nBecause.\n', 'The answer is 42.\nBecause.\n')).toBe(
      'The answer is [-41-]{+42+}.\nBecause.\n',
    );
  });

  it('shows added and removed lines whole, and counts words', () => {
    const parts = textDiff('one\ntwo\n', 'one\nthree four\n');
    expect(parts.filter((p) => p.kind !== 'same').map((p) => p.kind)).toEqual(['removed', 'added']);
    expect(diffStats(parts)).toEqual({ added: 2, removed: 1 });
    expect(render('a\n', 'a\nb\n')).toBe('a\n{+b\n+}');
    expect(textDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });
});
