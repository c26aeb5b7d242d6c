/**
 * Honest labels and numbers in the web page, in real headless Chromium against the built CLI
 * (`massgen --web`): the picker says what a config needs here (a local server that does not answer, a
 * local model not downloaded and its size); costs read as the CLI reads them ("cost unknown",
 * "$… + unknown", never "$0.00" for unknown) in the header, the panels and the table; a final answer cut
 * off at the model's output limit carries a badge.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  freePort,
  makeWorkdir,
  persona,
  runCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { newPage, startWeb, stopWeb, useBrowser, webSkipReason } from '../support/web-browser.js';

const skip = webSkipReason;
const POLL = { timeout: 20_000 };
const fake = useFakeServer();
const chrome = useBrowser();

describe.skipIf(skip !== '')(`honest labels in the page${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('the picker names a local server that does not answer and a model still to download (1.1 GB), with how to get each', async () => {
    const cwd = makeWorkdir();
    const down = `http://127.0.0.1:${await freePort()}/v1`;
    writeConfig(
      cwd,
      { agent: { id: 'llama', backend: { type: 'ollama', model: 'llama3.2', base_url: down } } },
      'down.yaml',
    );
    writeConfig(cwd, { agents: [agentEntry('a', fake.server.url)] }, 'team.yaml');
    expect((await runCli(['trust'], { cwd })).code).toBe(0);
    const models = path.join(cwd, 'models');
    const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml'], {
      env: { MASSGEN_MODEL_DIR: models, MASSGEN_HF_ENDPOINT: `http://127.0.0.1:${await freePort()}` },
    });
    const page = await newPage(chrome.browser);
    try {
      await page.goto(url);
      const picker = page.getByLabel('Config');
      await expect.poll(() => picker.inputValue(), POLL).toBe('team.yaml');
      expect(await picker.locator('option[value="down.yaml"]').textContent()).toBe(
        `⚠ down.yaml — no server at ${down.replace('http://', '')}`,
      );
      expect(await picker.locator('option[value="@examples/local/local_pair"]').textContent()).toBe(
        '⚠ @examples/local/local_pair — needs a 1.1 GB model download',
      );
      await picker.selectOption('down.yaml');
      await page
        .getByText(
          `llama: no ollama server answers at ${down} — start it: ollama serve (and ollama pull llama3.2)`,
        )
        .waitFor();
      await picker.selectOption('@examples/local/local_pair');
      const file = path.join(
        models,
        'Qwen',
        'Qwen2.5-1.5B-Instruct-GGUF',
        'qwen2.5-1.5b-instruct-q4_k_m.gguf',
      );
      await page
        .getByText(`is not downloaded yet — the first run downloads it (1.1 GB)`, { exact: false })
        .filter({ hasText: file })
        .waitFor();
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });

  it('costs read as in the CLI: "cost unknown" for an unpriced model, "$… + unknown" for the sum; a cut-off final answer has a badge', async () => {
    fake.server.setHandler((body: FakeChatRequestBody): FakeResponse => {
      if (toolNames(body).includes('new_answer')) return convergingHandler(body);
      return { text: `${finalAnswerOf('a')} And then it`, finishReason: 'length' };
    });
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
        pricing: { 'model-a': { input_per_million: 1000, output_per_million: 1000 } },
      },
      'team.yaml',
    );
    const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
    const page = await newPage(chrome.browser);
    try {
      await page.goto(url);
      await page.getByRole('textbox', { name: 'Question' }).fill('What is 6 x 7?');
      await page.getByRole('button', { name: 'Run' }).click();
      const final = page.getByRole('region', { name: 'Final answer' });
      await final.getByText('cut off (length)').waitFor({ timeout: 30_000 });
      await final
        .getByText("the final answer was cut off at the model's output limit (finishReason: length)", {
          exact: false,
        })
        .waitFor();

      const header = page.locator('.run-header');
      await expect.poll(() => header.textContent(), POLL).toMatch(/tokens · \$\d+\.\d{2,4} \+ unknown/);
      const table = page.getByRole('region', { name: 'Cost and tokens' });
      const row = (name: string) =>
        table
          .getByRole('row', { name: new RegExp(`^${name}\\b`) })
          .getByRole('cell')
          .last();
      await expect.poll(() => row('b').textContent(), POLL).toBe('cost unknown');
      expect(await row('a').textContent()).toMatch(/^\$\d+\.\d{2,4}$/);
      expect(await row('total').textContent()).toMatch(/^\$\d+\.\d{2,4} \+ unknown$/);
      const panel = page.getByRole('region', { name: 'b', exact: true });
      expect(await panel.locator('.usage-line').textContent()).toMatch(/· cost unknown$/);
      expect(await page.locator('body').textContent()).not.toMatch(/\$0\.00(?!\d)|no price/);
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });
});
