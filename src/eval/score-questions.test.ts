import { describe, expect, it } from 'vitest';
import { majorityOf } from './score-questions.js';

describe('majorityOf', () => {
  const keys = (map: Record<string, string | null>) => (id: string) => map[id] ?? null;
  it('takes the plurality', () => {
    expect(majorityOf(['a', 'b', 'c'], keys({ a: '1', b: '2', c: '2' }))).toEqual({ key: '2', agentId: 'b' });
  });
  it('breaks ties by the first holder in config order; silent agents do not vote', () => {
    expect(majorityOf(['a', 'b', 'c'], keys({ a: '1', b: '2', c: '3' }))).toEqual({ key: '1', agentId: 'a' });
    expect(majorityOf(['a', 'b', 'c', 'd'], keys({ a: '1', b: '2', c: '2', d: '1' }))).toEqual({
      key: '1',
      agentId: 'a',
    });
    expect(majorityOf(['a', 'b', 'c'], keys({ a: null, b: '2', c: '3' }))).toEqual({
      key: '2',
      agentId: 'b',
    });
    expect(majorityOf(['a'], keys({ a: null }))).toBeNull();
  });
});
