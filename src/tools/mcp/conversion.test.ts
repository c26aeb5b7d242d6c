import { describe, expect, it } from 'vitest';
import { toToolResult } from './call-result.js';
import { StderrTail } from './stderr-tail.js';
import { toToolSet } from './tool-definition.js';

describe('toToolResult', () => {
  it('joins text parts with newlines and keeps isError', () => {
    const result = toToolResult({
      content: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
      isError: true,
    });
    expect(result).toEqual({ content: 'one\ntwo', isError: true });
  });

  it('describes binary and linked content instead of inlining it', () => {
    const result = toToolResult({
      content: [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
    });
    expect(result.content).toBe(
      [
        '[image: image/png, 4 bytes base64]',
        '[audio: audio/wav, 8 bytes base64]',
        'inside',
        '[resource: file:///b.bin]',
        '[link: file:///c]',
      ].join('\n'),
    );
    expect(result.isError).toBeUndefined();
  });

  it('falls back to structured content, then to a placeholder', () => {
    expect(toToolResult({ content: [], structuredContent: { sum: 3 } }).content).toContain('"sum": 3');
    expect(toToolResult({ content: [] }).content).toBe('(no output)');
  });

  it('does not truncate', () => {
    expect(toToolResult({ content: [{ type: 'text', text: 'x'.repeat(200_000) }] }).content).toHaveLength(
      200_000,
    );
  });
});

describe('toToolSet', () => {
  const schema = { type: 'object' as const };

  it('maps names, schemas and only the hints the server gave', () => {
    const set = toToolSet('srv', [
      { name: 'plain', inputSchema: schema },
      { name: 'reader', description: 'Reads.', inputSchema: schema, annotations: { readOnlyHint: true } },
      {
        name: 'writer',
        inputSchema: { type: 'object', properties: { p: { type: 'string' } } },
        annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      },
      { name: 'task.only', inputSchema: schema, execution: { taskSupport: 'required' } },
    ]);
    expect(set.definitions.map((d) => d.name)).toEqual([
      'mcp__srv__plain',
      'mcp__srv__reader',
      'mcp__srv__writer',
    ]);
    const [plain, reader, writer] = set.definitions;
    expect(plain).toEqual({
      name: 'mcp__srv__plain',
      description: 'Tool "plain" of MCP server "srv".',
      parameters: { type: 'object', properties: {} },
    });
    expect(reader?.annotations).toEqual({ readOnly: true });
    expect(writer?.annotations).toEqual({ readOnly: false, destructive: true });
    expect(writer?.parameters).toEqual({ type: 'object', properties: { p: { type: 'string' } } });
    expect(set.originals.get('mcp__srv__writer')).toBe('writer');
  });
});

describe('StderrTail', () => {
  it('keeps the last lines, including an unfinished one', () => {
    const tail = new StderrTail(3);
    tail.push('a\nb\n\nc\nd');
    tail.push('e\nf');
    expect(tail.snapshot()).toEqual(['c', 'de', 'f']);
    expect(tail.oneLine()).toBe('c | de | f');
  });
});
