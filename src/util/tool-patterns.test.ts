import { describe, expect, it } from 'vitest';
import { matchesAnyToolPattern, matchesToolPattern } from './tool-patterns.js';

describe('matchesToolPattern', () => {
  it('matches exact names', () => {
    expect(matchesToolPattern('word_count', 'word_count')).toBe(true);
    expect(matchesToolPattern('word_count', 'word_coun')).toBe(false);
    expect(matchesToolPattern('mcp__fs__read_file', 'mcp__fs__read')).toBe(false);
  });

  it('lets * match any run of characters, including none', () => {
    expect(matchesToolPattern('mcp__filesystem__read_file', 'mcp__filesystem__*')).toBe(true);
    expect(matchesToolPattern('mcp__filesystem__', 'mcp__filesystem__*')).toBe(true);
    expect(matchesToolPattern('mcp__other__read_file', 'mcp__filesystem__*')).toBe(false);
    expect(matchesToolPattern('mcp__everything__echo', 'mcp__*__echo')).toBe(true);
    expect(matchesToolPattern('read_file', '*_file')).toBe(true);
    expect(matchesToolPattern('anything', '*')).toBe(true);
    expect(matchesToolPattern('ac', 'a*c')).toBe(true);
  });

  it('lets * cross / and . (tool names are not paths)', () => {
    expect(matchesToolPattern('mcp__srv__ns/tool', 'mcp__srv__*')).toBe(true);
    expect(matchesToolPattern('a/b/c', '*')).toBe(true);
    expect(matchesToolPattern('.hidden', '*')).toBe(true);
    expect(matchesToolPattern('mcp__srv__.x', 'mcp__srv__*')).toBe(true);
    expect(matchesToolPattern('tools.v2.run', 'tools.*.run')).toBe(true);
  });

  it('treats regex characters, a leading ! and extglob syntax literally', () => {
    expect(matchesToolPattern('a.b', 'a.b')).toBe(true);
    expect(matchesToolPattern('axb', 'a.b')).toBe(false);
    expect(matchesToolPattern('a+b', 'a+b')).toBe(true);
    expect(matchesToolPattern('aab', 'a+b')).toBe(false);
    expect(matchesToolPattern('a$b^c|d', 'a$b^c|d')).toBe(true);
    expect(matchesToolPattern('other', '!word_count')).toBe(false);
    expect(matchesToolPattern('!word_count', '!word_count')).toBe(true);
    expect(matchesToolPattern('ab', 'a@(b)')).toBe(false);
    expect(matchesToolPattern('a@(b)', 'a@(b)')).toBe(true);
  });

  it('understands ?, [abc] and {a,b}', () => {
    expect(matchesToolPattern('tool1', 'tool?')).toBe(true);
    expect(matchesToolPattern('tool12', 'tool?')).toBe(false);
    expect(matchesToolPattern('mcp__fs__read_file', 'mcp__fs__{read,write}_file')).toBe(true);
    expect(matchesToolPattern('mcp__fs__move_file', 'mcp__fs__{read,write}_file')).toBe(false);
    expect(matchesToolPattern('step_b', 'step_[ab]')).toBe(true);
    expect(matchesToolPattern('step_c', 'step_[ab]')).toBe(false);
  });
});

describe('matchesAnyToolPattern', () => {
  it('is true when any pattern matches, false for an empty list', () => {
    expect(matchesAnyToolPattern('mcp__fs__read_file', ['word_count', 'mcp__fs__*'])).toBe(true);
    expect(matchesAnyToolPattern('mcp__fs__read_file', ['word_count'])).toBe(false);
    expect(matchesAnyToolPattern('word_count', [])).toBe(false);
  });
});
