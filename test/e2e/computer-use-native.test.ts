/**
 * Claude's own computer tool (`tools.computer` with `native: auto`, docs/computer-use.md): a scripted
 * Claude agent — the real `@ai-sdk/anthropic` against the local Anthropic fake — gets Anthropic's
 * `computer` tool instead of the generic ones, clicks the button of a small X app on its Xvfb desktop
 * with a native `left_click`, and the screenshot it gets back (an image block inside the next
 * request's `tool_result`) shows the change.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMassGen, type RunEvent } from '../../src/index.js';
import {
  anthropicMessagesDialect,
  type FakeAnthropicBlock,
  type FakeMessagesRequestBody,
} from '../../src/testing/fake-server/anthropic-messages.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer, type FakeServer } from '../../src/testing/fake-server/server.js';
import { readPng } from '../../src/testing/png.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import { findExecutable } from '../../src/util/find-executable.js';
import { useRealClockForChildren } from '../support/real-clock-env.js';
import { makeWorkdir, removeTempDirs } from './cli-harness.js';

// Xvfb and the X app are what this file starts; under CI's clock-ahead pass they get the real clock.
useRealClockForChildren();

const missing = ['Xvfb', 'xdotool', 'xmessage'].filter((name) => !findExecutable(name, process.env.PATH));
const sandbox = sandboxSupport(process.env.PATH);
const skipReason = [
  ...(missing.length > 0 ? [`${missing.join(', ')} not installed`] : []),
  ...(sandbox.ok ? [] : [`no sandbox: ${sandbox.reason}`]),
].join('; ');
const skipped = skipReason === '' ? '' : ` (skipped: ${skipReason})`;

/** A white window with a button "Go" at x 5..27, y 58..75; clicked, a red window titled "after". */
const CLICK_APP =
  'xmessage -geometry 160x80+0+0 -title before -bg white -fg black -buttons Go:0 hello &&' +
  ' exec xmessage -geometry 160x80+0+0 -title after -bg red -fg black -buttons Done:0 clicked';

/** The agent's steps, one per model call; then it answers. */
const PLAN = [
  { name: 'computer_launch', arguments: { command: CLICK_APP } },
  { name: 'computer_wait', arguments: { window: '^before$' } },
  { name: 'computer', arguments: { action: 'screenshot' } },
  { name: 'computer', arguments: { action: 'left_click', coordinate: [16, 66] } },
  { name: 'computer_wait', arguments: { window: '^after$' } },
  { name: 'computer', arguments: { action: 'screenshot' } },
];

type Body = FakeMessagesRequestBody;

/** The `tool_result` blocks of a request, in order. */
const toolResults = (body: Body): FakeAnthropicBlock[] =>
  (body.messages ?? []).flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
  );

/** The PNG inside a `tool_result` (an image block of its content), decoded. */
function imageOf(result: FakeAnthropicBlock | undefined) {
  const blocks = Array.isArray(result?.content) ? (result.content as FakeAnthropicBlock[]) : [];
  const image = blocks.find((b) => b.type === 'image') as
    { source?: { type: string; media_type: string; data: string } } | undefined;
  if (!image?.source) return null;
  expect(image.source).toMatchObject({ type: 'base64', media_type: 'image/png' });
  return readPng(Buffer.from(image.source.data, 'base64'));
}

/** A single agent: it works with its tools until the plan is done, then answers. */
function script(body: Body, _index: number, view: FakeRequestView): FakeResponse {
  const step = view.toolNames.includes('computer_launch') ? PLAN[toolResults(body).length] : undefined;
  return step ? { toolCalls: [step] } : { text: 'Clicked Go; the window turned red.' };
}

describe('Claude with its own computer tool', () => {
  let server: FakeServer<Body>;
  beforeAll(async () => {
    server = await startFakeServer<Body>([anthropicMessagesDialect]);
  });
  afterAll(async () => {
    await server.close();
    removeTempDirs();
  });
  beforeEach(() => server.reset());

  it.skipIf(skipReason !== '')(
    `clicks an X app's button with native actions and sees the change in the screenshot it gets back${skipped}`,
    async () => {
      server.setHandler(script);
      const events: RunEvent[] = [];
      const result = await runMassGen({
        config: {
          agent: {
            id: 'claude',
            backend: {
              type: 'claude',
              model: 'claude-sonnet-4-5',
              base_url: `${server.origin}/v1`,
              cwd: 'ws',
            },
          },
          tools: { computer: { width: 320, height: 200 } },
        },
        question: 'Click the Go button.',
        cwd: makeWorkdir(),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ANTHROPIC_API_KEY: 'sk-ant-test-0000' },
        logging: false,
        onEvent: (event) => events.push(event),
      });
      expect(result.status).toBe('completed');

      // The request offered Anthropic's computer tool with the desktop's size (and its beta header),
      // next to launch and wait; the generic click/screenshot tools are not offered.
      const first = server.requests[0]!;
      expect(first.body?.tools).toContainEqual(
        expect.objectContaining({
          type: 'computer_20250124',
          name: 'computer',
          display_width_px: 320,
          display_height_px: 200,
        }),
      );
      expect(first.headers['anthropic-beta']).toMatch(/computer-use-2025-01-24/);
      expect(first.view?.toolNames).toEqual(expect.arrayContaining(['computer_launch', 'computer_wait']));
      expect(first.view?.toolNames).not.toContain('computer_click');
      expect(first.view?.toolNames).not.toContain('computer_screenshot');

      // Each native result came back as a tool_result holding the screenshot as an image block.
      const last = server.requests.findLast((r) => toolResults(r.body!).length >= PLAN.length)!;
      const results = toolResults(last.body!);
      const before = imageOf(results[2]);
      const clicked = imageOf(results[3]);
      const after = imageOf(results[5]);
      expect(imageOf(results[0])).toBeNull();
      expect([before?.width, before?.height]).toEqual([320, 200]);
      expect(before!.pixel(140, 30)).toEqual([255, 255, 255]);
      expect(clicked).not.toBeNull();
      expect(after!.pixel(140, 30)).toEqual([255, 0, 0]);
      expect(after!.pixel(300, 180)).toEqual([0, 0, 0]);
      // Inside the tool results only: no picture travels in a user message of its own.
      const looseImages = (last.body!.messages ?? []).flatMap((m) =>
        Array.isArray(m.content) ? m.content.filter((b) => b.type === 'image') : [],
      );
      expect(looseImages).toEqual([]);

      // Events name each native action and record the screenshots by reference only.
      const finished = events.filter(
        (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
          e.type === 'tool.call.finished' && e.toolName === 'computer',
      );
      expect(finished.map((e) => [e.isError, e.media?.map((m) => m.path)])).toEqual([
        [false, ['.computer/screenshots/001.png']],
        [false, ['.computer/screenshots/002.png']],
        [false, ['.computer/screenshots/003.png']],
      ]);
      expect(finished[1]!.result).toMatch(/^left_click \(16, 66\); screenshot: /);
      expect(JSON.stringify(finished)).not.toMatch(/"data"/);
    },
  );
});
