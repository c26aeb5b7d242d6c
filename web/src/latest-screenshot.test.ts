import { describe, expect, it } from 'vitest';
import { latestScreenshot, screenshotPath } from './components/latest-screenshot.js';
import type { AgentStream, ToolCallView } from './run-view.js';

const call = (toolName: string, result: string | null, isError = false): ToolCallView => ({
  callId: `${toolName}-${result}`,
  toolName,
  arguments: '{}',
  result,
  isError,
  waitingApproval: false,
});

describe('the latest desktop screenshot of an agent', () => {
  it('is the last successful computer_screenshot of its transcript', () => {
    const stream: AgentStream = {
      agentId: 'a',
      turns: [
        {
          turn: 1,
          text: '',
          reasoning: '',
          received: [],
          tools: [
            call(
              'computer_screenshot',
              '{"screenshot":".computer/screenshots/001.png","width":1,"height":1}',
            ),
            call('computer_click', 'left-clicked at 1,1'),
          ],
        },
        {
          turn: 2,
          text: '',
          reasoning: '',
          received: [],
          tools: [
            call('computer_screenshot', '{"screenshot":".computer/screenshots/002.png"}'),
            call('computer_screenshot', 'the virtual desktop is not running', true),
            call('computer_screenshot', null),
          ],
        },
      ],
    };
    expect(latestScreenshot(stream)).toBe('.computer/screenshots/002.png');
    expect(latestScreenshot(undefined)).toBeNull();
    expect(screenshotPath('not json')).toBeNull();
  });
});
