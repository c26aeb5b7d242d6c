/**
 * Media in the web UI, in real headless Chromium (Debian's /usr/bin/chromium through playwright-core)
 * against the built CLI (`massgen --web`; run `npm run build` first), agents on the local scripted
 * OpenAI-compatible server: files attached to the question (picked, listed as chips, removed, a bad one
 * refused by the box) reach the agents and show on the run page, again in a replay; an image an agent
 * makes shows in its panel and the final answer — each checked on a screenshot of the element, decoded
 * and found not blank. Screenshots go to test/artifacts/web-media/ (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { sampleWav } from '../../src/testing/fake-server/media-samples.js';
import { openAIMediaEndpoint } from '../../src/testing/fake-server/openai-media.js';
import { openAIResponsesDialect } from '../../src/testing/fake-server/openai-responses.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer } from '../../src/testing/fake-server/server.js';
import { readPng } from '../../src/testing/png.js';
import { paintPng } from '../../src/util/png.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import { REPO_ROOT, agentEntry, makeWorkdir, persona, writeConfig } from './cli-harness.js';
import { useFakeServer } from './cli-harness.js';
import { POLL } from '../support/wait.js';
import {
  CHROMIUM,
  hasChromium,
  newPage,
  startWeb,
  stopWeb,
  useBrowser,
  WEB_TEST,
} from '../support/web-browser.js';

if (!hasChromium) console.warn(`web media tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts', 'web-media');
const built = fs.existsSync(path.join(REPO_ROOT, 'dist', 'web', 'index.html'));

const fake = useFakeServer();
const chrome = useBrowser({ artifacts: ARTIFACTS });

/** A `size`×`size` PNG with a red-to-blue gradient and a green square: far from blank. */
function picture(size = 64): Buffer {
  return paintPng(size, size, (x, y) => {
    const square = x > size / 4 && x < size / 2 && y > size / 4 && y < size / 2;
    return square ? [20, 220, 20] : [Math.round((255 * x) / size), 40, Math.round((255 * y) / size)];
  });
}

/** The spread of an element's screenshot: the standard deviation of its pixels' brightness. */
async function spread(element: Locator, file: string): Promise<number> {
  const shot = await element.screenshot({ path: path.join(ARTIFACTS, file) });
  const image = readPng(shot);
  const values: number[] = [];
  for (let y = 0; y < image.height; y += 2)
    for (let x = 0; x < image.width; x += 2) {
      const [r = 0, g = 0, b = 0] = image.pixel(x, y);
      values.push((r + g + b) / 3);
    }
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
}

/** The share of an element's screenshot (inside its border) within 40 of `rgb` on every channel. */
async function shareOf(element: Locator, rgb: readonly number[], file: string): Promise<number> {
  const image = readPng(await element.screenshot({ path: path.join(ARTIFACTS, file) }));
  let near = 0;
  let all = 0;
  for (let y = 3; y < image.height - 3; y++)
    for (let x = 3; x < image.width - 3; x++) {
      const pixel = image.pixel(x, y);
      all++;
      if (rgb.every((v, i) => Math.abs((pixel[i] ?? 0) - v) <= 40)) near++;
    }
  return near / all;
}

/** An `<img>` once the browser has decoded it (its natural width), else 0. */
const naturalWidth = (image: Locator) =>
  image.evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth);

const sentImage = (bodies: readonly FakeChatRequestBody[], data: Buffer) =>
  bodies.some((body) => JSON.stringify(body.messages ?? []).includes(data.toString('base64')));

async function goToRun(page: Page, url: string, question: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Question').fill(question);
}

describe.skipIf(!hasChromium || !built)('media in the web UI in a real browser', () => {
  it(
    'attaches picked and dropped files as chips, refuses a bad one by the box, sends the rest (and a follow-up’s) to the agents and shows them, also in a replay',
    WEB_TEST,
    async () => {
      const photo = picture();
      const bodies: FakeChatRequestBody[] = [];
      fake.server.setHandler((body) => {
        bodies.push(body);
        return { text: 'The picture has a green square on a red-blue gradient.' };
      });
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        { agents: [agentEntry('a', fake.server.url, { system_message: persona('a') })] },
        'one.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'one.yaml']);
      const page = await newPage(chrome.browser);
      try {
        await goToRun(page, url, 'What is in the picture?');
        const input = page.locator('input[type="file"]');
        const chips = page.getByRole('list', { name: 'Attached files' });

        // A text file named like an image: the server sniffs the bytes and the box says why it is refused.
        await input.setInputFiles([
          { name: 'photo.png', mimeType: 'image/png', buffer: photo },
          { name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('just some words\n') },
        ]);
        await chips.getByText('photo.png').waitFor();
        await chips.getByText('notes.png').waitFor();
        await page.getByRole('button', { name: 'Run' }).click();
        const refusal = page.locator('.attach').getByRole('alert');
        await refusal.waitFor();
        expect(await refusal.textContent()).toBe(
          'attachments[1] (notes.png): its bytes are not an image (looks like text/plain): check it is the file you meant, or give a text file a text name (.txt, .md) to attach it as text',
        );
        expect(page.url()).not.toContain('/runs/');
        await page.screenshot({ path: path.join(ARTIFACTS, 'attach-refused.png'), fullPage: true });

        // Removed; a file dropped on the question box is added, and removed again.
        await page.getByRole('button', { name: 'Remove notes.png' }).click();
        expect(await chips.getByText('notes.png').count()).toBe(0);
        // What a drag from the file manager carries (built in the page: the test's types have no DOM).
        const dropped = await page.evaluateHandle(
          `(() => { const t = new DataTransfer(); t.items.add(new File(['%PDF-1.4'], 'dropped.pdf', { type: 'application/pdf' })); return t; })()`,
        );
        await page.getByLabel('Question').dispatchEvent('dragover', { dataTransfer: dropped });
        await page.getByLabel('Question').dispatchEvent('drop', { dataTransfer: dropped });
        await chips.getByText('dropped.pdf').waitFor();
        await page.getByRole('button', { name: 'Remove dropped.pdf' }).click();
        expect(await chips.getByText('dropped.pdf').count()).toBe(0);
        await page.getByRole('button', { name: 'Run' }).click();
        await page.waitForURL(/\/runs\//);
        const attached = page
          .getByRole('group', { name: 'Attached files' })
          .getByRole('img', { name: 'photo.png' });
        await expect.poll(() => naturalWidth(attached), POLL).toBe(64);
        expect(await spread(attached, 'attachment.png')).toBeGreaterThan(20);
        await page.getByRole('region', { name: 'Final answer' }).waitFor();
        expect(sentImage(bodies, photo)).toBe(true);

        // A follow-up carries files too.
        const second = picture(32);
        const followUp = page.locator('form.ask');
        await followUp
          .locator('input[type="file"]')
          .setInputFiles([{ name: 'second.png', mimeType: 'image/png', buffer: second }]);
        await page.getByLabel('Follow-up').fill('And in this one?');
        await page.getByRole('button', { name: 'Ask' }).click();
        await page.waitForURL(/\/runs\/run2/);
        const followed = page
          .getByRole('group', { name: 'Attached files' })
          .getByRole('img', { name: 'second.png' });
        await expect.poll(() => naturalWidth(followed), POLL).toBe(32);
        await page.getByRole('region', { name: 'Final answer' }).waitFor();
        expect(sentImage(bodies, second)).toBe(true);

        // The replay of the logged run shows the attachment again (it is kept under .massgen/uploads).
        const logs = fs
          .readdirSync(path.join(cwd, '.massgen', 'massgen_logs'))
          .filter((n) => n.startsWith('log_'));
        expect(logs).toHaveLength(2);
        await page.goto(new URL(`/runs/${logs.sort()[0]}`, url).toString());
        await page.getByRole('button', { name: 'Jump to end' }).click();
        const replayed = page
          .getByRole('group', { name: 'Attached files' })
          .getByRole('img', { name: 'photo.png' });
        await expect.poll(() => naturalWidth(replayed), POLL).toBe(64);

        // Once the stored upload is gone, the replay says so instead of a broken image.
        fs.rmSync(path.join(cwd, '.massgen', 'uploads'), { recursive: true });
        await page.reload();
        await page.getByRole('button', { name: 'Jump to end' }).click();
        await page.getByText('photo.png: file no longer available').waitFor();
        await page.screenshot({ path: path.join(ARTIFACTS, 'replay-gone.png'), fullPage: true });
      } finally {
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );

  it(
    'shows an image an agent’s tool returned in its panel and, delivered, in the final answer; plays audio in the file preview',
    WEB_TEST,
    async () => {
      const chart = picture();
      const cwd = makeWorkdir();
      const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws_a');
      const bodies: FakeChatRequestBody[] = [];
      // The agent's first step makes its files (the workspace is emptied when the run starts) and looks
      // at the image with read_media; then it answers.
      fake.server.setHandler((body) => {
        bodies.push(body);
        if (!(body.messages ?? []).some((m) => m.role === 'tool')) {
          fs.writeFileSync(path.join(workspace, 'chart.png'), chart);
          fs.writeFileSync(path.join(workspace, 'tone.wav'), sampleWav(0.5));
          return { toolCalls: [{ name: 'read_media', arguments: { path: 'chart.png' } }] };
        }
        return { text: 'The chart shows a green square on a gradient.' };
      });
      writeConfig(
        cwd,
        {
          agents: [
            agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { cwd: 'ws_a' } }),
          ],
        },
        'chart.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'chart.yaml']);
      const page = await newPage(chrome.browser);
      try {
        await goToRun(page, url, 'Draw me a chart.');
        await page.getByRole('button', { name: 'Run' }).click();
        const panel = page.getByRole('region', { name: 'a', exact: true });
        const inPanel = panel
          .getByRole('group', { name: 'Media from read_media' })
          .getByRole('img', { name: 'chart.png' });
        await expect.poll(() => naturalWidth(inPanel), POLL).toBe(64);
        expect(await spread(inPanel, 'agent-panel-image.png')).toBeGreaterThan(20);
        // The model saw the picture itself.
        expect(sentImage(bodies, chart)).toBe(true);

        const final = page.getByRole('region', { name: 'Final answer' });
        const delivered = final
          .getByRole('group', { name: 'Delivered media' })
          .getByRole('img', { name: 'chart.png' });
        await expect.poll(() => naturalWidth(delivered), POLL).toBe(64);
        expect(await spread(delivered, 'final-answer-image.png')).toBeGreaterThan(20);
        await final
          .getByRole('group', { name: 'Delivered media' })
          .locator('audio[aria-label="tone.wav"]')
          .waitFor();
        await page.screenshot({ path: path.join(ARTIFACTS, 'run-with-media.png'), fullPage: true });

        // The Files panel plays the audio file.
        const files = page.getByRole('region', { name: 'Workspaces' });
        await files.getByRole('tab', { name: "a's workspace" }).click();
        await files.getByRole('button', { name: 'tone.wav' }).click();
        const audio = page
          .getByRole('region', { name: 'File preview' })
          .locator('audio[aria-label="Audio tone.wav"]');
        await expect
          .poll(() => audio.evaluate((el) => (el as unknown as { duration: number }).duration), POLL)
          .toBeCloseTo(0.5, 1);
      } finally {
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );

  it(
    'shows an image generate_image made (OpenAI’s image endpoint, faked) in the agent panel and the final answer',
    WEB_TEST,
    async () => {
      const media = openAIMediaEndpoint();
      const server = await startFakeServer([openAIResponsesDialect], { routes: media.routes });
      server.setHandler((_body, index, view: FakeRequestView): FakeResponse => {
        if (index === 0 && view.toolNames.includes('generate_image'))
          return { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a blue square' } }] };
        return { text: 'Here is the picture: generated/image-001.png' };
      });
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: [
            {
              id: 'painter',
              backend: {
                type: 'openai',
                model: 'gpt-5-mini',
                base_url: `${server.origin}/v1`,
                api_key: 'sk-test-media-0000',
                cwd: 'ws_p',
                enable_image_generation: true,
              },
            },
          ],
        },
        'paint.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'paint.yaml']);
      const page = await newPage(chrome.browser);
      try {
        await goToRun(page, url, 'Paint a blue square.');
        await page.getByRole('button', { name: 'Run' }).click();
        const inPanel = page
          .getByRole('region', { name: 'painter', exact: true })
          .getByRole('group', { name: 'Media from generate_image' })
          .getByRole('img', { name: 'image-001.png' });
        await expect.poll(() => naturalWidth(inPanel), POLL).toBe(8);
        // The fake endpoint's PNG is one colour (32, 128, 224): the element shows it, not a blank box.
        expect(await shareOf(inPanel, [32, 128, 224], 'generated-in-panel.png')).toBeGreaterThan(0.8);
        const delivered = page
          .getByRole('region', { name: 'Final answer' })
          .getByRole('group', { name: 'Delivered media' })
          .getByRole('img', { name: 'generated/image-001.png' });
        await expect.poll(() => naturalWidth(delivered), POLL).toBe(8);
        expect(await shareOf(delivered, [32, 128, 224], 'generated-in-final.png')).toBeGreaterThan(0.8);
        await page.screenshot({ path: path.join(ARTIFACTS, 'generated-image.png'), fullPage: true });
        expect(media.requests).toHaveLength(1);
      } finally {
        await page.context().close();
        await stopWeb(cli);
        await server.close();
      }
    },
  );
});
