/**
 * The checklist gate's score matrix in real headless Chromium (Debian's /usr/bin/chromium through
 * playwright-core): a checklist-gated run with `--eval-criteria` through the built CLI against a local
 * scripted OpenAI-compatible server, then its logged events replayed in `massgen --web`. The heatmap is
 * found by accessible name; the screenshot is kept in the test's own temp folder (printed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  runCli,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import {
  CHROMIUM,
  hasChromium,
  newPage,
  startWeb,
  stopWeb,
  useBrowser,
  WEB_TEST,
} from '../support/web-browser.js';

if (!hasChromium)
  console.warn(`score heatmap test skipped: ${CHROMIUM} not found (apt-get install chromium)`);

const fake = useFakeServer();
const chrome = useBrowser();
/** Kept after the run (unlike the work folders): the screenshot artifact lives here. */
const artifacts = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-web-scores-'));

const textOf = (body: FakeChatRequestBody) =>
  (body.messages ?? [])
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

/** The JSON-schema shapes this test reads from the offered tools. */
interface ToolParameters {
  properties: {
    evaluations: { items: { properties: { agent_id: { enum: string[] }; scores: { required: string[] } } } };
    improvement_plan?: unknown;
    agent_id: { enum: string[] };
  };
}

/** The parameters of a tool offered in the request. */
const paramsOf = (body: FakeChatRequestBody, name: string) =>
  (body.tools ?? []).find((t) => t.function.name === name)?.function.parameters as ToolParameters | undefined;

/**
 * A checklist-gated team: first answers at quality 4 (a) and 8 (b); a scorer gives every criterion the
 * quality written in the answer; after an iterate verdict the best answer is improved to 9; converge
 * votes; the presenter presents.
 */
function gatedHandler(body: FakeChatRequestBody): FakeResponse {
  const id = agentOf(body) ?? 'unknown';
  const tools = toolNames(body);
  const text = textOf(body);
  const checklist = paramsOf(body, 'submit_checklist');
  if (checklist) {
    const item = checklist.properties.evaluations.items.properties;
    const quality = (anon: string) =>
      Number(new RegExp(`<${anon}>\\n[^\\n]*quality=(\\d+)`).exec(text)?.[1] ?? '0');
    return {
      text: `${id} scores the answers.`,
      toolCalls: [
        {
          name: 'submit_checklist',
          arguments: {
            evaluations: item.agent_id.enum.map((anon) => ({
              agent_id: anon,
              scores: Object.fromEntries(
                item.scores.required.map((c) => [c, { score: quality(anon), reason: `${id}: ${c}` }]),
              ),
            })),
          },
        },
      ],
    };
  }
  const answer = paramsOf(body, 'new_answer');
  if (answer?.properties.improvement_plan)
    return {
      toolCalls: [
        {
          name: 'new_answer',
          arguments: { improvement_plan: `${id}: fix E1`, content: `quality=9\n${id} improved: 6 x 7 = 42` },
        },
      ],
    };
  if (tools.includes('vote')) {
    const ids = paramsOf(body, 'vote')?.properties.agent_id.enum ?? [];
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: ids[0], reason: `${id}: passes` } }] };
  }
  if (answer)
    return {
      delayMs: id === 'a' ? 0 : 40,
      toolCalls: [
        { name: 'new_answer', arguments: { content: `quality=${id === 'a' ? 4 : 8}\n${id}: 6 x 7 = 42` } },
      ],
    };
  return { text: `Final answer from ${id}: 6 x 7 = 42.`, chunkSize: 9 };
}

describe.skipIf(!hasChromium)('the score matrix in a real browser', () => {
  it(
    'a checklist-gated run with --eval-criteria logs scores.json, and its replay shows the heatmap',
    WEB_TEST,
    async () => {
      fake.server.setHandler(gatedHandler);
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
          orchestrator: { voting_sensitivity: 'checklist_gated' },
        },
        'team.yaml',
      );
      writeConfig(
        cwd,
        {
          aspiration: 'The right product, shown.',
          criteria: [
            { text: 'States the right product', tier: 'primary', anti_patterns: ['arithmetic slips'] },
            { text: 'Shows the working', tier: 'standard' },
            { text: 'Names a check', tier: 'standard' },
            { text: 'Reads well', tier: 'stretch' },
          ],
        },
        'criteria.yaml',
      );
      const question = 'What is 6 x 7, checked?';
      const run = await runCli(
        ['--config', 'team.yaml', '--eval-criteria', 'criteria.yaml', '--no-display', question],
        {
          cwd,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/☑ checklist round 1: (iterate|converge)/);
      const scores = JSON.parse(fs.readFileSync(path.join(onlyLogDir(cwd), 'scores.json'), 'utf8')) as {
        source: string;
        rounds: unknown[];
      };
      expect(scores.source).toBe('file');
      expect(scores.rounds.length).toBeGreaterThan(0);

      const { cli: web, url } = await startWeb(cwd);
      const page = await newPage(chrome.browser, { height: 1200 });
      try {
        await page.goto(url);
        await page.getByRole('button', { name: `Replay ${question}` }).click();
        await page.getByRole('button', { name: 'Jump to end' }).click();
        const scoresRegion = page.getByRole('region', { name: 'Scores' });
        const round1 = scoresRegion.getByRole('table', { name: 'Score matrix, round 1' });
        await round1.waitFor();
        // Each cell is named for screen readers: author, criterion, round, mean score.
        await round1.getByRole('cell', { name: /^a on E1 in round 1: \d+(\.\d)? of 10/ }).waitFor();
        await round1.getByRole('columnheader', { name: 'E4' }).waitFor();
        await scoresRegion
          .getByRole('list', { name: 'Verdicts' })
          .getByText(/round 1: (iterate|converge)/)
          .first()
          .waitFor();
        const shot = path.join(artifacts, 'web-score-heatmap.png');
        await page.getByRole('region', { name: 'Scores' }).screenshot({ path: shot });
        expect(fs.statSync(shot).size).toBeGreaterThan(1000);
        console.log(`score heatmap screenshot: ${shot}`);
      } finally {
        await page.context().close();
        await stopWeb(web);
      }
    },
  );
});
