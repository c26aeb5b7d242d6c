import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from './closest-match.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('model', 'models')).toBe(1);
  });

  it('counts a swap of adjacent characters as one edit', () => {
    expect(editDistance('modle', 'model')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    expect(editDistance('mdoel', 'model')).toBe(1);
    expect(editDistance('max_retires', 'max_retries')).toBe(1);
  });

  it('finds swaps from the front and from the back, also next to other edits', () => {
    expect(editDistance('mdoel_nmae', 'model_name')).toBe(2);
    expect(editDistance('tmeprature', 'temperature')).toBe(2);
    expect(editDistance('model_nmae', 'model_name')).toBe(1);
  });

  it('charges a swap boxed in by edits on both sides as two edits (full alignment would say one)', () => {
    // Where it differs from optimal string alignment (3); both are past the threshold for 7 letters.
    expect(editDistance('amdoelb', 'model')).toBe(4);
  });
});

describe('closestMatch', () => {
  const keys = ['type', 'model', 'base_url', 'api_key', 'temperature', 'max_tokens', 'max_retries'];

  it('suggests the closest candidate', () => {
    expect(closestMatch('modle', keys)).toBe('model');
    expect(closestMatch('temprature', keys)).toBe('temperature');
    expect(closestMatch('apikey', keys)).toBe('api_key');
    expect(closestMatch('max_retry', keys)).toBe('max_retries');
  });

  it('ignores case and returns the candidate as written', () => {
    expect(closestMatch('MODEL', keys)).toBe('model');
    expect(closestMatch('model', ['Model'])).toBe('Model');
  });

  it('returns undefined when nothing is close enough', () => {
    expect(closestMatch('colour', keys)).toBeUndefined();
    expect(closestMatch('x', [])).toBeUndefined();
  });

  it('honours an explicit maxDistance', () => {
    expect(closestMatch('mdl', keys)).toBeUndefined();
    expect(closestMatch('mdl', keys, 2)).toBe('model');
    expect(closestMatch('model', keys, 0)).toBe('model');
  });

  it('breaks ties by candidate order', () => {
    expect(closestMatch('cat', ['bat', 'hat'])).toBe('bat');
  });
});
