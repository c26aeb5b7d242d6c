import { describe, expect, it } from 'vitest';
import { agentAnswerRelPath, formatLogTimestamp, safePathSegment } from './paths.js';

describe('formatLogTimestamp', () => {
  it('formats local time with microseconds derived from milliseconds', () => {
    expect(formatLogTimestamp(new Date(2024, 0, 2, 3, 4, 5, 67))).toBe('20240102_030405_067000');
    expect(formatLogTimestamp(new Date(2024, 11, 31, 23, 59, 59, 999))).toBe('20241231_235959_999000');
    expect(formatLogTimestamp(new Date(2024, 5, 6, 0, 0, 0, 0))).toBe('20240606_000000_000000');
  });
});

describe('safePathSegment', () => {
  it('keeps ordinary ids and neutralises path tricks', () => {
    expect(safePathSegment('gpt-4o_agent.1')).toBe('gpt-4o_agent.1');
    expect(safePathSegment('../etc')).toBe('.._etc');
    expect(safePathSegment('..')).toBe('__');
    expect(safePathSegment('a/b\\c')).toBe('a_b_c');
    expect(safePathSegment('')).toBe('_');
    expect(agentAnswerRelPath('x/y', 's')).not.toContain('x/y');
  });
});
