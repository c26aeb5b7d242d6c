/**
 * Accessibility of the web UI, checked with axe-core in real headless Chromium against the built CLI
 * (`massgen --web`): the start page, a live run, a finished run (with a cut-off final answer's badge and
 * an unpriced model's cost) and a replay, each in the light and the dark theme — no serious or critical
 * violation (colour contrast, heading order, names, …).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  runCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { seriousViolations } from '../support/axe.js';
import { newPage, startWeb, stopWeb, useBrowser, webSkipReason } from '../support/web-browser.js';

const skip = webSkipReason;
const fake = useFakeServer();
const chrome = useBrowser();
const SCHEMES = ['light', 'dark'] as const;

/** Every serious or critical violation on the page, in both themes, labelled with the theme. */
async function violationsInBothThemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await seriousViolations(page)).map((v) => `${scheme}: ${v}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** A team that converges on a; the presentation stops at the output limit. */
function cutOff(body: FakeChatRequestBody): FakeResponse {
  if (toolNames(body).includes('new_answer')) return convergingHandler(body);
  return { text: `${finalAnswerOf('a')} And then it stops mid`, finishReason: 'length' };
}

describe.skipIf(skip !== '')(`axe-core finds nothing serious${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it(
    'on the start page, a live run, a finished run and a replay, light and dark',
    { timeout: 150_000 },
    async () => {
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
          // One priced model, one not: the page shows "$… + unknown" and "cost unknown".
          pricing: { 'model-a': { input_per_million: 1000, output_per_million: 1000 } },
        },
        'team.yaml',
      );
      // An earlier run to replay.
      fake.server.setHandler(convergingHandler);
      expect(
        (await runCli(['--config', 'team.yaml', '--no-display', 'An earlier question?'], { cwd })).code,
      ).toBe(0);

      // Live: every model reply waits until the page has been checked.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      fake.server.setHandler(async (body: FakeChatRequestBody) => {
        if (toolNames(body).includes('new_answer')) await gate;
        return cutOff(body);
      });
      const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
      const page = await newPage(chrome.browser, { bypassCSP: true });
      try {
        await page.goto(url);
        await page.getByRole('button', { name: 'Run' }).waitFor();
        await page.getByRole('button', { name: 'Replay An earlier question?' }).waitFor();
        expect(await violationsInBothThemes(page), 'the start page').toEqual([]);

        await page.getByRole('textbox', { name: 'Question' }).fill('What is 6 x 7?');
        await page.getByRole('button', { name: 'Run' }).click();
        await page.getByRole('region', { name: 'a', exact: true }).waitFor();
        await page.getByText('· live').waitFor();
        expect(await violationsInBothThemes(page), 'a live run').toEqual([]);

        open();
        const final = page.getByRole('region', { name: 'Final answer' });
        await final.getByText('cut off (length)').waitFor({ timeout: 30_000 });
        await page.getByRole('region', { name: 'Cost and tokens' }).getByText('cost unknown').waitFor();
        await page.getByText('Refresh files').waitFor();
        expect(await violationsInBothThemes(page), 'a finished run').toEqual([]);

        await page.goto(url);
        await page.getByRole('button', { name: 'Replay An earlier question?' }).click();
        await page.getByRole('button', { name: 'Jump to end' }).click();
        await page.getByRole('region', { name: 'Final answer' }).getByText(finalAnswerOf('a')).waitFor();
        expect(await violationsInBothThemes(page), 'a replay').toEqual([]);
      } finally {
        open();
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );
});
