/**
 * A human answers an agent's `ask_others` question through the web UI (real Chromium), with
 * `coordination.broadcast: human` (docs/ask-others.md): the question appears with a box for the
 * answer, the answer goes back to the asking agent as its tool result, and the timeline shows both.
 * The answer carries the run's API key: it is masked before the model or the logs see it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  makeWorkdir,
  onlyLogDir,
  persona,
  toolNames,
  useFakeServer,
  waitFor,
  writeConfig,
} from './cli-harness.js';
import { CHROMIUM, hasChromium, newPage, startWeb, stopWeb, useBrowser } from '../support/web-browser.js';

const fake = useFakeServer();
const chrome = useBrowser();
const POLL = { timeout: 20_000 };
const SECRET = 'sk-live-0123456789abcdefSECRETVALUE';

const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

/** The agent asks the human once, then answers with what it was told. */
function askingAgent(body: FakeChatRequestBody): FakeResponse {
  const results = toolResults(body);
  if (toolNames(body).includes('ask_others') && results.length === 0)
    return { toolCalls: [{ name: 'ask_others', arguments: { question: 'Which database should I use?' } }] };
  return { text: `Going with what I was told. ${results.join(' ')}` };
}

describe.skipIf(!hasChromium)(
  `ask_others in the web UI${hasChromium ? '' : ` (skipped: no ${CHROMIUM})`}`,
  () => {
    it(
      'the human answers the question in the page; the agent gets it with secrets masked',
      { timeout: 120_000 },
      async () => {
        fake.server.setHandler(askingAgent);
        const cwd = makeWorkdir();
        writeConfig(
          cwd,
          {
            agents: [
              agentEntry('a', fake.server.url, {
                system_message: persona('a'),
                backend: { api_key: SECRET },
              }),
            ],
            orchestrator: { coordination: { broadcast: 'human', broadcast_timeout: 300 } },
          },
          'team.yaml',
        );
        const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml'], { timeoutMs: 120_000 });
        const page = await newPage(chrome.browser, { timeoutMs: 20_000 });
        try {
          await page.goto(url);
          await page.getByLabel('Question').fill('Set up the storage');
          await expect.poll(() => page.getByLabel('Config').inputValue(), POLL).toBe('team.yaml');
          await page.getByRole('button', { name: 'Run' }).click();

          const questions = page.getByRole('region', { name: 'Questions for you' });
          const box = questions.getByLabel('a asks: Which database should I use?');
          await box.waitFor({ timeout: 30_000 });
          await box.fill(`Postgres. The admin key is ${SECRET}`);
          await questions.getByRole('button', { name: 'Answer a' }).click();

          const timeline = page.getByRole('region', { name: 'Timeline' });
          await timeline.getByText('asked you: Which database should I use?').waitFor();
          await timeline
            .getByText(/you answered: Postgres\. The admin key is \*+/)
            .waitFor({ timeout: 30_000 });
          await questions.waitFor({ state: 'detached', timeout: 30_000 });
          await waitFor(
            () =>
              fake.server.requests.some((r) => toolResults(r.body ?? {}).some((t) => t.includes('Postgres'))),
            30_000,
            "the agent's request carrying the human's answer",
          );
        } finally {
          await page.close();
          await stopWeb(cli);
        }
        const answered = fake.server.requests
          .flatMap((r) => toolResults(r.body ?? {}))
          .find((t) => t.includes('Postgres'));
        expect(answered).toMatch(/^The human answered: Postgres\. The admin key is /);
        expect(answered).not.toContain(SECRET);
        const logged = fs.readFileSync(path.join(onlyLogDir(cwd), 'events.jsonl'), 'utf8');
        expect(logged).toContain('"type":"ask_others.answered"');
        expect(logged).not.toContain(SECRET);
      },
    );
  },
);
