/**
 * The web UI's answers, steering, failed starts and file previews in real headless Chromium (Debian's
 * /usr/bin/chromium through playwright-core), against the built CLI (`massgen --web`; run
 * `npm run build` first) with agents on a local scripted OpenAI-compatible server. Driven by
 * accessible names. Screenshots at 1280 and 420 px, light and dark, go to test/artifacts/web-answers/
 * (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import { tinyPdf } from '../../src/testing/media-fixtures.js';
import { paintPng } from '../../src/util/png.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  finalAnswerOf,
  makeWorkdir,
  persona,
  runCli,
  toolNames,
  writeConfig,
} from './cli-harness.js';
import { useFakeServer } from './cli-harness.js';
import { POLL, waitUntil } from '../support/wait.js';
import {
  CHROMIUM,
  hasChromium,
  newPage,
  startWeb,
  stopWeb,
  useBrowser,
  WEB_TEST,
} from '../support/web-browser.js';

if (!hasChromium) console.warn(`web answers tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts', 'web-answers');
const built = fs.existsSync(path.join(REPO_ROOT, 'dist', 'web', 'index.html'));

const fake = useFakeServer();
const chrome = useBrowser({ artifacts: ARTIFACTS });

/** Two animation frames: the page has laid out and painted after a change. */
const painted = (page: Page) =>
  page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');

/**
 * Full-page screenshots at 1280 and 420 px, light and dark; the page is left at 1280 px, light.
 * `redraw` runs after each change of size or scheme, for content the page cannot wait on itself (a
 * frame without scripts is repainted by opening it again).
 */
async function shots(page: Page, name: string, redraw?: () => Promise<void>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 420]) {
      await page.setViewportSize({ width, height: 1000 });
      await redraw?.();
      await painted(page);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}-${scheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 1000 });
}

/** What the page shows at 420 px must fit: nothing wider than the viewport but scroll boxes. */
async function overflowAt420(page: Page): Promise<number> {
  await page.setViewportSize({ width: 420, height: 1000 });
  const width = await page.evaluate<number>('document.documentElement.scrollWidth');
  await page.setViewportSize({ width: 1280, height: 1000 });
  return width;
}

const textOf = (body: FakeChatRequestBody | null) => JSON.stringify(body?.messages ?? []);
/** The agent a recorded request came from. */
const sender = (body: FakeChatRequestBody | null) => (body ? agentOf(body) : null);
const vote = (id: string, reason: string): FakeResponse => ({
  text: `${id} compares the answers.`,
  chunkSize: 6,
  toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason } }],
});
const answer = (content: string): FakeResponse => ({
  text: 'Writing my answer.',
  chunkSize: 6,
  toolCalls: [{ name: 'new_answer', arguments: { content } }],
});

const A1 = 'A-ONE: 6 x 7 = 42.';
const A2 = 'A-TWO: 6 x 7 = **42**, checked twice.\n\n```python\nprint(6 * 7)\n```\n';
const B1 = 'B-ONE: it is 42. <img src=x onerror="document.title=\'pwned\'"> [click](javascript:alert(1))';
const C1 = 'C-ONE: forty-two.';
const STEER = 'Please give the result in metric units.';

describe.skipIf(!hasChromium || !built)('answers, votes, steering and replay in a real browser', () => {
  it(
    'shows each answer rendered, its versions and diff, the tally with a self-vote, a steering message the model receives, and answer now',
    WEB_TEST,
    async () => {
      let release!: () => void;
      const steered = new Promise<void>((resolve) => (release = resolve));
      // a answers, holds its revision until the test has steered, revises, then votes for itself; b and
      // c answer, then vote for agent1 (a's answer) — once for agent1.1 (reset by the revision), again
      // for agent1.2. The winner a has 3 votes, its own included.
      fake.server.setHandler(async (body) => {
        const id = agentOf(body) ?? '?';
        const seen = textOf(body);
        if (seen.includes('And 7 x 8?')) {
          // The follow-up: everyone answers, then waits until "Answer now" cuts the discussion short.
          if (!toolNames(body).includes('new_answer')) return { text: 'Final: 7 x 8 = 56.' };
          if (seen.includes(`${id.toUpperCase()}-56`)) return { hang: true };
          return answer(`${id.toUpperCase()}-56: 7 x 8 = 56.`);
        }
        if (!toolNames(body).includes('new_answer')) return { text: finalAnswerOf(id), chunkSize: 9 };
        if (id === 'a') {
          if (seen.includes('A-TWO')) return vote('a', 'a: my second version is complete');
          if (seen.includes('A-ONE')) {
            await steered;
            return answer(A2);
          }
          return answer(A1);
        }
        const mine = id === 'b' ? 'B-ONE' : 'C-ONE';
        if (!seen.includes(mine)) return answer(id === 'b' ? B1 : C1);
        return vote(id, `${id}: agent1 shows its work`);
      });
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: ['a', 'b', 'c'].map((id) =>
            agentEntry(id, fake.server.url, { system_message: persona(id) }),
          ),
          pricing: Object.fromEntries(
            ['a', 'b', 'c'].map((id) => [`model-${id}`, { input_per_million: 2, output_per_million: 8 }]),
          ),
        },
        'team.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
      const page = await newPage(chrome.browser);
      try {
        await page.goto(url);
        await page.getByLabel('Question').fill('What is 6 x 7?');
        await expect.poll(() => page.getByLabel('Config').inputValue(), POLL).toBe('team.yaml');
        await page.getByRole('button', { name: 'Run' }).click();
        const panel = (id: string) => page.getByRole('region', { name: id, exact: true });

        // Every agent's first answer, rendered in its panel; b's HTML stays text, its link goes nowhere.
        await panel('a').getByRole('region', { name: 'Latest answer of a' }).getByText('A-ONE').waitFor();
        await panel('b').getByRole('region', { name: 'Latest answer of b' }).getByText(/B-ONE/).waitFor();
        await panel('c').getByRole('region', { name: 'Latest answer of c' }).getByText('C-ONE').waitFor();
        expect(await panel('b').getByRole('link', { name: 'click' }).getAttribute('href')).toBe('#');
        expect(await panel('b').locator('img').count()).toBe(0);
        // b and c vote for agent1.1 while a holds its revision.
        const votes = page.getByRole('region', { name: 'Votes' });
        const tally = page.getByRole('paragraph').filter({ hasText: /^Votes:/ });
        await expect.poll(async () => tally.textContent(), POLL).toMatch(/^Votes: a 2 · b 0 · c 0$/);

        // Steering: a message to b only.
        const steering = page.getByRole('region', { name: 'Steer the agents' });
        await steering.getByLabel('Message to the agents').fill(STEER);
        await steering.getByLabel('Send to').selectOption('b');
        await shots(page, 'live-steering');
        const before = fake.server.requests.length;
        await steering.getByRole('button', { name: 'Send' }).click();
        const timeline = page.getByRole('region', { name: 'Timeline' });
        await timeline.getByText(`you → b: ${STEER}`).waitFor();
        release();

        // The revision resets the votes; b's next request carries the message, a's and c's do not.
        await waitUntil(
          () =>
            fake.server.requests
              .slice(before)
              .some((r) => sender(r.body) === 'b' && textOf(r.body).includes(STEER)),
          "b's next request with the message",
        );
        const final = page.getByRole('region', { name: 'Final answer' });
        await final.getByText(finalAnswerOf('a')).waitFor();
        expect(
          fake.server.requests.filter((r) => sender(r.body) !== 'b' && textOf(r.body).includes(STEER)),
        ).toEqual([]);
        await timeline.getByText(/delivered to b\)/).waitFor();
        await panel('b').getByText(STEER).first().waitFor();

        // The tally: 3 for a, its own vote drawn as a loop; the winner marked in the header and the graph.
        await expect.poll(async () => tally.textContent(), POLL).toMatch(/a 3 ★ winner · b 0 · c 0/);
        expect(await votes.getByRole('list', { name: 'Vote tally' }).textContent()).toMatch(
          /a 3 votes\s*winner/,
        );
        expect(await votes.locator('path.edge.self:not(.struck)').count()).toBe(1);
        expect(await votes.getByRole('img', { name: /a for itself/ }).count()).toBe(1);
        expect(await votes.getByText('(reset)').count()).toBeGreaterThanOrEqual(2);

        // a's panel: the rendered second version (bold, highlighted code), its two versions and the diff.
        const latestA = panel('a').getByRole('region', { name: 'Latest answer of a' });
        await latestA.locator('strong', { hasText: '42' }).waitFor();
        expect(await latestA.locator('code.language-python .hljs-built_in').first().textContent()).toBe(
          'print',
        );
        await panel('a').getByRole('button', { name: 'agent1.2' }).click();
        const versions = panel('a').getByRole('region', { name: 'Answer versions of a' });
        await versions.getByRole('tab', { name: 'agent1.1' }).click();
        await versions.getByText('A-ONE: 6 x 7 = 42.').waitFor();
        await versions.getByRole('tab', { name: 'agent1.2' }).click();
        await versions.getByRole('button', { name: 'Compare with agent1.1' }).click();
        const diff = versions.getByRole('region', { name: 'Changes from agent1.1 to agent1.2' });
        expect(await diff.locator('del').allTextContents()).toContain('ONE');
        expect(await diff.locator('ins').allTextContents()).toContain('TWO');

        // The answer browser: all three side by side, who voted for each and why.
        const browserRegion = page.getByRole('region', { name: 'Answers' });
        const winnerCard = browserRegion.getByRole('article', { name: 'agent1.2 by a' });
        // The votes' order is the order they arrived in, which a busy machine may change.
        const votesForWinner = await winnerCard
          .getByRole('list', { name: 'Votes for agent1.2' })
          .textContent();
        expect(votesForWinner).toContain('a (itself): a: my second version is complete');
        expect(votesForWinner).toContain('b: b: agent1 shows its work');
        expect(votesForWinner).toContain('c: c: agent1 shows its work');
        expect(await browserRegion.getByRole('article').count()).toBe(3);

        // Cost and tokens per agent and in total (priced in the config).
        const usage = page.getByRole('region', { name: 'Cost and tokens' });
        expect(await usage.getByRole('row', { name: /^total/ }).textContent()).toMatch(/\$\d+\.\d{2,4}$/);
        expect(await page.title()).toBe('massgen');
        expect(await overflowAt420(page)).toBeLessThanOrEqual(420);
        await shots(page, 'answers-final');

        // Answer now, in a follow-up: the agents answer and then keep thinking until it is pressed.
        await page.getByLabel('Follow-up').fill('And 7 x 8?');
        await page.getByRole('button', { name: 'Ask' }).click();
        await page.getByRole('heading', { name: 'And 7 x 8?' }).waitFor();
        await page.getByRole('region', { name: 'Answers' }).getByRole('article').nth(2).waitFor();
        const answerNow = page.getByRole('button', { name: 'Answer now' });
        await expect.poll(() => answerNow.isEnabled(), POLL).toBe(true);
        await answerNow.click();
        await page
          .getByRole('region', { name: 'Timeline' })
          .getByText('you asked for the answer now')
          .waitFor();
        await page.getByRole('region', { name: 'Final answer' }).getByText('Final: 7 x 8 = 56.').waitFor();
        await shots(page, 'answer-now');
      } finally {
        release();
        await page.context().close();
        await stopWeb(cli);
      }

      // A new server replays the steered run from its log: the message between a's two answers.
      const again = await startWeb(cwd, []);
      const replay = await newPage(chrome.browser);
      try {
        await replay.goto(again.url);
        await replay.getByRole('button', { name: 'Replay What is 6 x 7?' }).click();
        await replay.getByRole('button', { name: 'Jump to end' }).click();
        await replay.getByRole('region', { name: 'Final answer' }).getByText(finalAnswerOf('a')).waitFor();
        const lines = await replay
          .getByRole('region', { name: 'Timeline' })
          .getByRole('listitem')
          .allTextContents();
        const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
        expect(at(/new answer agent1\.1/)).toBeGreaterThanOrEqual(0);
        expect(at(/you → b: Please give/)).toBeGreaterThan(at(/new answer agent1\.1/));
        expect(at(/you → b: Please give/)).toBeLessThan(at(/new answer agent1\.2/));
        expect(lines[at(/you → b: Please give/)]).toMatch(/delivered to b\)/);
        await shots(replay, 'replay-steered');
      } finally {
        await replay.context().close();
        await stopWeb(again.cli);
      }
    },
  );
});

/** A 32×32 RGB gradient, dropped into the workspace mid-run. */
const GRADIENT_PNG = paintPng(32, 32, (x, y) => [x * 8, y * 8, 160]);

const FILES: Record<string, string> = {
  'notes.md':
    '# Notes\n\nSome **bold** text.\n\n<img src=x onerror="document.title=\'pwned\'">\n\n[bad](javascript:alert(1))\n\n| city | country |\n| --- | --- |\n| Paris | France |\n',
  'page.html':
    "<!doctype html><title>p</title><h1>Hello from HTML</h1><script>document.body.append('SCRIPT RAN'); parent.document.title = 'pwned';</script>",
  'data.csv': 'city,country,population\nParis,France,"2,102,650"\n"Tokyo",Japan,"13,960,000"\n',
  'logo.svg':
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60"><rect width="160" height="60" rx="8" fill="#2da44e"/><script>parent.document.title = "pwned"</script><text x="16" y="38" font-size="22" fill="white">SVG logo</text></svg>',
  'src/app.py': 'def answer():\n    """The answer."""\n    return 6 * 7\n',
  // A US Letter page, large type near the top, so the browser's viewer shows the text at once.
  'doc.pdf': tinyPdf('Hello PDF', { width: 612, height: 792, fontSize: 24, x: 72, y: 700 }).toString(
    'latin1',
  ),
};

describe.skipIf(!hasChromium || !built)('file previews in a real browser', () => {
  it(
    'shows the workspace as it grows, and previews Markdown, HTML (sandboxed), CSV, SVG, PNG, PDF and code',
    WEB_TEST,
    async () => {
      let release!: () => void;
      const seen = new Promise<void>((resolve) => (release = resolve));
      // One agent answers directly (no voting): it writes the files, then waits until the test saw them.
      fake.server.setHandler(async (body) => {
        if (!(body.messages ?? []).some((m) => m.role === 'tool'))
          return {
            toolCalls: Object.entries(FILES).map(([file, content]) => ({
              name: 'write_file',
              arguments: { path: file, content },
            })),
          };
        await seen;
        return { text: 'The files are in the workspace.' };
      });
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: [
            agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { cwd: 'ws_a' } }),
          ],
        },
        'files.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'files.yaml']);
      const page = await newPage(chrome.browser);
      try {
        await page.goto(url);
        await page.getByLabel('Question').fill('Make some files.');
        await page.getByRole('button', { name: 'Run' }).click();
        const files = page.getByRole('region', { name: 'Workspaces' });
        await files.getByRole('tab', { name: "a's workspace" }).click();
        // Mid-run: the files the agent wrote show up, and a file dropped in later appears too.
        await files.getByRole('button', { name: 'notes.md' }).waitFor();
        fs.writeFileSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'dot.png'), GRADIENT_PNG);
        await files.getByRole('button', { name: 'dot.png' }).waitFor();
        expect(await page.getByRole('region', { name: 'Final answer' }).count()).toBe(0);
        const preview = page.getByRole('region', { name: 'File preview' });

        await files.getByRole('button', { name: 'notes.md' }).click();
        const notes = preview.getByRole('region', { name: 'Rendered notes.md' });
        await notes.getByRole('heading', { name: 'Notes' }).waitFor();
        expect(await notes.getByRole('cell', { name: 'Paris' }).count()).toBe(1);
        expect(await notes.locator('img').count()).toBe(0);
        expect(await notes.getByRole('link', { name: 'bad' }).getAttribute('href')).toBe('#');
        await shots(page, 'preview-markdown');

        await files.getByRole('button', { name: 'page.html' }).click();
        const frame = preview.locator('iframe[title="HTML page page.html"]');
        expect(await frame.getAttribute('sandbox')).toBe('');
        await page.frameLocator('iframe[title="HTML page page.html"]').getByText('Hello from HTML').waitFor();
        expect(
          await page.frameLocator('iframe[title="HTML page page.html"]').getByText('SCRIPT RAN').count(),
        ).toBe(0);
        const source = preview.getByRole('button', { name: 'Source' });
        await shots(page, 'preview-html', async () => {
          await source.click();
          await source.click();
          await frame.scrollIntoViewIfNeeded();
          await page
            .frameLocator('iframe[title="HTML page page.html"]')
            .getByText('Hello from HTML')
            .waitFor();
        });

        await files.getByRole('button', { name: 'data.csv' }).click();
        const table = preview.getByRole('table', { name: 'Table data.csv' });
        await table.getByRole('columnheader', { name: 'population' }).waitFor();
        expect(await table.getByRole('row', { name: /Paris France 2,102,650/ }).count()).toBe(1);
        await shots(page, 'preview-csv');

        for (const [file, alt] of [
          ['logo.svg', 'SVG image logo.svg'],
          ['dot.png', 'Image dot.png'],
        ] as const) {
          await files.getByRole('button', { name: file }).click();
          const image = preview.getByRole('img', { name: alt });
          await expect
            .poll(
              () => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
              POLL,
            )
            .toBeGreaterThan(0);
          await shots(page, `preview-${file.replace('.', '-')}`);
        }

        await files.getByRole('button', { name: 'doc.pdf' }).click();
        const pdf = preview.locator('iframe[title="PDF doc.pdf"]');
        await pdf.waitFor();
        const response = await page.request.get(
          new URL((await pdf.getAttribute('src')) as string, url).toString(),
        );
        expect(response.headers()['content-type']).toBe('application/pdf');
        expect(response.headers()['x-content-type-options']).toBe('nosniff');
        // The browser's own PDF viewer took the file (neither the CSP nor the frame options stopped it).
        const viewer = () => page.frames().find((f) => f.url().startsWith('chrome-extension://'));
        await expect.poll(() => viewer() !== undefined, POLL).toBe(true);
        // Chromium's viewer says when the document is in (its own field: 'failed' when it cannot read it).
        await expect
          .poll(
            () => viewer()?.evaluate<string | undefined>("document.querySelector('pdf-viewer')?.loadState_"),
            POLL,
          )
          .toBe('success');
        await shots(page, 'preview-pdf', () => pdf.scrollIntoViewIfNeeded());

        await files.getByRole('button', { name: 'app.py' }).click();
        await preview.locator('code.language-python .hljs-keyword', { hasText: 'def' }).waitFor();
        await shots(page, 'preview-code');

        // Nothing a file held ran in the page.
        expect(await page.title()).toBe('massgen');
        expect(await overflowAt420(page)).toBeLessThanOrEqual(420);
        release();
        await page
          .getByRole('region', { name: 'Final answer' })
          .getByText('The files are in the workspace.')
          .waitFor();
      } catch (error) {
        await page.screenshot({ path: path.join(ARTIFACTS, 'failed-previews.png'), fullPage: true });
        throw error;
      } finally {
        release();
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );
});

describe.skipIf(!hasChromium || !built)('a run that cannot start, in a real browser', () => {
  it('marks the configs that cannot run, names every missing key with its fix, and leaves no phantom run', async () => {
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: [
          { id: 'gpt', backend: { type: 'openai', model: 'gpt-4o-mini' } },
          { id: 'claude', backend: { type: 'claude', model: 'claude-haiku-4-5' } },
          { id: 'gemini', backend: { type: 'gemini', model: 'gemini-2.5-flash' } },
        ],
      },
      'keys.yaml',
    );
    writeConfig(cwd, { agents: [agentEntry('a', fake.server.url)] }, 'local.yaml');
    // The folder's own configs are offered once it is trusted (test/e2e/project-trust.test.ts).
    expect((await runCli(['trust'], { cwd })).code).toBe(0);
    const { cli, url } = await startWeb(cwd, ['--config', 'keys.yaml']);
    const page = await newPage(chrome.browser);
    try {
      await page.goto(url);
      // The picker says which configs lack keys (and starts on one that can run).
      const picker = page.getByLabel('Config');
      await expect.poll(() => picker.inputValue(), POLL).toBe('local.yaml');
      const option = picker.locator('option[value="keys.yaml"]');
      expect(await option.textContent()).toMatch(/needs .*OPENAI_API_KEY.*ANTHROPIC_API_KEY/);
      expect(await picker.locator('option[value="local.yaml"]').textContent()).not.toMatch(/needs/);

      await page.getByLabel('Question').fill('Anything?');
      await picker.selectOption('keys.yaml');
      await page.getByText(/keys\.yaml.* cannot run yet: set OPENAI_API_KEY/).waitFor();
      await page.getByRole('button', { name: 'Run' }).click();
      const problems = page.getByRole('region', { name: 'Cannot start the run' });
      await problems.waitFor();
      // One line per agent, naming it, its key and the fix.
      const items = await problems.getByRole('listitem').allTextContents();
      expect(items).toHaveLength(3);
      for (const [agent, key] of [
        ['gpt', /OPENAI_API_KEY/],
        ['claude', /ANTHROPIC_API_KEY/],
        ['gemini', /(GOOGLE|GEMINI)_API_KEY/],
      ] as const)
        expect(items.filter((t) => t.includes(agent) && key.test(t) && /Fix: /.test(t))).toHaveLength(1);
      expect(await problems.getByText(/^Fix: /).count()).toBeGreaterThanOrEqual(3);
      // Still on the start page: no run page, no live panels, no run left "starting".
      expect(new URL(page.url()).pathname).toBe('/');
      const token = new URL(url).searchParams.get('token') as string;
      const runs = (await (
        await fetch(new URL('/api/runs', url), { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { live: unknown[] };
      expect(runs.live).toEqual([]);
      expect(await page.getByRole('region', { name: 'History' }).getByText('No runs yet.').count()).toBe(1);
      expect(await overflowAt420(page)).toBeLessThanOrEqual(420);
      await shots(page, 'failed-start');
    } catch (error) {
      await page.screenshot({ path: path.join(ARTIFACTS, 'failed-failed-start.png'), fullPage: true });
      throw error;
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });
});
