import type { LanguageModelV3ProviderTool } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { pngMedia } from '../../tools/png-media.js';
import type { ChatMessage, ToolDefinition } from '../../types/messages.js';
import { NATIVE_IMAGES_KEPT, toCallTools, trimNativeScreenshots } from './native-tools.js';

const computer: ToolDefinition = {
  name: 'computer',
  description: 'desktop',
  parameters: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'] },
  native: { kind: 'computer', displayWidthPx: 320, displayHeightPx: 200 },
};
const plain: ToolDefinition = { name: 'read_file', description: 'read', parameters: { type: 'object' } };

describe('native tools in a call', () => {
  it('a backend with the vendor tool sends it; without one the definition goes as a function tool', () => {
    const vendor: LanguageModelV3ProviderTool = {
      type: 'provider' as const,
      name: 'computer',
      id: 'anthropic.computer_20250124',
      args: {},
    };
    const withVendor = toCallTools([computer, plain], (d) => (d.native ? vendor : undefined));
    expect(withVendor.tools.map((t) => t.type)).toEqual(['provider', 'function']);
    expect([...withVendor.nativeNames]).toEqual(['computer']);
    const without = toCallTools([computer, plain], undefined);
    expect(without.tools[0]).toMatchObject({
      type: 'function',
      name: 'computer',
      inputSchema: computer.parameters,
    });
    expect(without.nativeNames.size).toBe(0);
  });

  it(`keeps the latest ${NATIVE_IMAGES_KEPT} native screenshots and names the older ones`, () => {
    const shot = (n: number): ChatMessage => ({
      role: 'tool',
      toolCallId: `c${n}`,
      toolName: 'computer',
      content: `screenshot ${n}`,
      media: [pngMedia(new Uint8Array([n]), `.computer/screenshots/00${n}.png`)],
    });
    const other: ChatMessage = {
      ...(shot(9) as Extract<ChatMessage, { role: 'tool' }>),
      toolName: 'read_media',
    };
    const history = [shot(1), shot(2), other, shot(3), shot(4)];
    const trimmed = trimNativeScreenshots(history, new Set(['computer']));
    expect(trimmed.map((m) => (m.role === 'tool' ? (m.media?.length ?? 0) : -1))).toEqual([0, 1, 1, 1, 1]);
    expect(trimmed[0]).toMatchObject({
      content: 'screenshot 1\n[older screenshot left out: .computer/screenshots/001.png]',
    });
    expect(trimNativeScreenshots(history, new Set())).toBe(history);
  });
});
