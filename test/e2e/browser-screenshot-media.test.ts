/**
 * `browser_screenshot` shows the model the page (docs/browser.md): a scripted OpenAI agent — the real
 * `@ai-sdk/openai` against the local Responses fake — opens a page in real Chromium, takes a
 * screenshot, and its next request carries the picture as an image part; the events record the
 * screenshot by its workspace path only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMassGen, type RunEvent } from '../../src/index.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { openAIResponsesDialect } from '../../src/testing/fake-server/openai-responses.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer, type FakeServer } from '../../src/testing/fake-server/server.js';
import { findChromium } from '../../src/tools/browser/index.js';
import { startPages } from '../fixtures/browser/pages.js';
import { useRealClockForChildren } from '../support/real-clock-env.js';
import { makeWorkdir, removeTempDirs } from './cli-harness.js';

// Chromium is what this file starts; under CI's clock-ahead pass it gets the real clock.
useRealClockForChildren();

const chromium = findChromium(process.env.PATH);

type Body = { input?: Array<Record<string, unknown>> };

/** Every `input_image` content part of a Responses request, with the item that carries it. */
const imageParts = (body: Body) =>
  (body.input ?? []).flatMap((item, index) =>
    (Array.isArray(item.content) ? (item.content as Array<Record<string, unknown>>) : [])
      .filter((part) => part.type === 'input_image')
      .map((part) => ({ index, part })),
  );

describe.skipIf(chromium === null)(
  `browser screenshots reach the model${chromium === null ? ' (skipped: no chromium on PATH)' : ''}`,
  () => {
    let server: FakeServer<Body>;
    let pages: Awaited<ReturnType<typeof startPages>>;
    beforeAll(async () => {
      [server, pages] = await Promise.all([startFakeServer<Body>([openAIResponsesDialect]), startPages()]);
    });
    afterAll(async () => {
      await Promise.all([server?.close(), pages?.close()]);
      removeTempDirs();
    });
    beforeEach(() => server.reset());

    it('a browser_screenshot reaches the next request as an image part', async () => {
      const plan = [
        { name: 'browser_navigate', arguments: { url: `${pages.origin}/` } },
        { name: 'browser_screenshot', arguments: {} },
      ];
      let step = 0;
      server.setHandler((_body, _index, view: FakeRequestView): FakeResponse => {
        const call = view.toolNames.includes('browser_screenshot') ? plan[step++] : undefined;
        return call ? { toolCalls: [call] } : { text: 'I saw the greeter page.' };
      });
      const events: RunEvent[] = [];
      const result = await runMassGen({
        config: {
          agent: {
            id: 'gpt',
            backend: { type: 'openai', model: 'gpt-5-mini', base_url: `${server.origin}/v1`, cwd: 'ws' },
          },
          tools: { browser: { allowed_origins: [pages.origin] } },
        },
        question: 'Look at the page.',
        cwd: makeWorkdir(),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OPENAI_API_KEY: 'sk-test-0000' },
        logging: false,
        onEvent: (event) => events.push(event),
      });
      expect(result.status).toBe('completed');
      expect(server.requests).toHaveLength(3);
      expect(imageParts(server.requests[1]!.body!)).toEqual([]);
      const images = imageParts(server.requests[2]!.body!);
      expect(images).toHaveLength(1);
      const url = String(images[0]!.part.image_url);
      expect(url).toMatch(/^data:image\/png;base64,/);
      expect(
        Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')
          .subarray(1, 4)
          .toString(),
      ).toBe('PNG');
      const shot = events.find(
        (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
          e.type === 'tool.call.finished' && e.toolName === 'browser_screenshot',
      );
      expect(shot?.result).toMatch(/^screenshot: screenshots\/001\.png/);
      expect(shot?.media).toEqual([
        expect.objectContaining({ path: 'screenshots/001.png', mediaType: 'image/png', kind: 'image' }),
      ]);
    });
  },
);
