import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BrowserShots } from './browser-shots.js';

describe('BrowserShots', () => {
  it("shows each agent's latest screenshot from its workspace, and nothing without one", () => {
    const tool = (callId: string, result: string) => ({
      callId,
      toolName: 'browser_screenshot',
      arguments: '{}',
      result,
      isError: false,
      waitingApproval: false,
    });
    const html = renderToStaticMarkup(
      <BrowserShots
        runId="r1"
        streams={{
          a: {
            agentId: 'a',
            turns: [
              {
                turn: 1,
                text: '',
                reasoning: '',
                received: [],
                tools: [
                  tool('c1', 'screenshot: screenshots/001.png'),
                  tool('c2', 'screenshot: screenshots/002.png'),
                ],
              },
            ],
          },
        }}
      />,
    );
    expect(html).toContain(
      'src="/api/runs/r1/raw?root=workspace%3Aa&amp;path=screenshots%2F002.png&amp;v=c2"',
    );
    expect(html).toContain('a · screenshots/002.png');
    expect(renderToStaticMarkup(<BrowserShots runId="r1" streams={{}} />)).toBe('');
  });
});
