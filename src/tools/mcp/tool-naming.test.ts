import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME_LENGTH, mcpToolName, mcpToolNames } from './tool-naming.js';

describe('mcpToolName', () => {
  it('prefixes the server and keeps safe names as they are', () => {
    expect(mcpToolName('files', 'read_file')).toBe('mcp__files__read_file');
    expect(mcpToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
  });

  it('replaces characters outside [A-Za-z0-9_-] with _', () => {
    expect(mcpToolName('my.server', 'tool/name with spaces:é')).toBe(
      'mcp__my_server__tool_name_with_spaces__',
    );
  });

  it('cuts long names to 64 characters with a stable hash suffix', () => {
    const tool = `very_long_tool_name_${'x'.repeat(80)}`;
    const name = mcpToolName('server', tool);
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(/^mcp__server__very_long_tool_name_x+_[0-9a-f]{8}$/);
    expect(mcpToolName('server', tool)).toBe(name);
  });

  it('keeps long names that share a prefix distinct', () => {
    const prefix = 'p'.repeat(70);
    expect(mcpToolName('s', `${prefix}_a`)).not.toBe(mcpToolName('s', `${prefix}_b`));
  });

  it('leaves a name of exactly 64 characters alone', () => {
    const tool = 't'.repeat(64 - 'mcp__s__'.length);
    expect(mcpToolName('s', tool)).toBe(`mcp__s__${tool}`);
  });
});

describe('mcpToolNames', () => {
  it('gives tools that sanitise to the same name distinct names', () => {
    const [dotted, underscored] = mcpToolNames('s', ['a.b', 'a_b']);
    expect(dotted).toBe('mcp__s__a_b');
    expect(underscored).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});
