import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import { createPlainDisplay } from './plain-display.js';

describe('--no-display: computer actions', () => {
  it('shows a vendor computer action by its target and other calls as JSON', () => {
    let out = '';
    const show = createPlainDisplay((text) => (out += text));
    const started = (toolName: string, args: unknown) =>
      show({
        type: 'tool.call.started',
        ts: 0,
        seq: 0,
        runId: 'r',
        agentId: 'claude',
        phase: 'coordination',
        callId: toolName,
        toolName,
        arguments: args,
      } as RunEvent);
    started('computer', { action: 'left_click', coordinate: [120, 48] });
    started('computer_click', { x: 16, y: 66 });
    expect(out).toBe('[claude] ⚙ computer left_click (120, 48)\n[claude] ⚙ computer_click {"x":16,"y":66}\n');
  });
});
