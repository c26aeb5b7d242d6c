import { describe, expect, it } from 'vitest';
import { latestScreenshots } from './browser-shots.js';
import type { AgentStream, ToolCallView } from './run-view.js';

const call = (callId: string, toolName: string, result: string | null, isError = false): ToolCallView => ({
  callId,
  toolName,
  arguments: '{}',
  result,
  isError,
  waitingApproval: false,
});
const stream = (agentId: string, ...tools: ToolCallView[][]): AgentStream => ({
  agentId,
  turns: tools.map((t, i) => ({ turn: i + 1, text: '', reasoning: '', tools: t, received: [] })),
});

describe('latestScreenshots', () => {
  it("finds each agent's latest successful screenshot, across turns; failures and other tools do not count", () => {
    const shots = latestScreenshots({
      a: stream(
        'a',
        [call('1', 'browser_screenshot', 'screenshot: screenshots/001.png\nSaved…')],
        [
          call('2', 'browser_screenshot', 'screenshot: screenshots/002.png\nSaved…'),
          call('3', 'browser_screenshot', 'browser_screenshot failed: boom', true),
          call('4', 'browser_navigate', 'Page: x'),
        ],
      ),
      b: stream('b', [call('5', 'browser_navigate', 'Page: y'), call('6', 'browser_screenshot', null)]),
      c: undefined,
    });
    expect(shots).toEqual([{ agentId: 'a', path: 'screenshots/002.png', callId: '2' }]);
  });
});
