/**
 * The web UI in real headless Chromium (Debian's /usr/bin/chromium through playwright-core), against
 * the built CLI (`massgen --web`) with agents on a local scripted OpenAI-compatible server. Driven by
 * accessible names. Screenshots of each state go to test/artifacts/ (git-ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  votableIds,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  runCli,
  startCli,
  useFakeServer,
  waitFor,
  writeConfig,
  type RunningCli,
} from './cli-harness.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`web UI tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');

const fake = useFakeServer();
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    // The browser is a tool here, not what is tested: CI's date-independence pass moves the clock with
    // an LD_PRELOAD library that Chromium's processes do not survive, so it gets the real clock.
    env: Object.fromEntries(
      Object.entries(process.env).filter(
        (e): e is [string, string] =>
          e[1] !== undefined && e[0] !== 'LD_PRELOAD' && !e[0].startsWith('FAKETIME'),
      ),
    ),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});

/**
 * A converging team slow enough to watch (and to cut the socket mid-run) whose third agent answers
 * late: the others have voted by then, so its answer visibly resets their votes.
 */
function slowConverging(body: FakeChatRequestBody): FakeResponse {
  const late = agentOf(body) === 'c' && !votableIds(body).includes('agent1');
  return { ...convergingHandler(body), delayMs: late ? 250 : 40 };
}

async function startWeb(cwd: string, args: string[] = []): Promise<{ cli: RunningCli; url: string }> {
  const cli = startCli(['--web', '--port', '0', ...args], { cwd, timeoutMs: 60_000 });
  await waitFor(() => /massgen web UI: (\S+)/.test(cli.stdout), 15_000, 'the web server address');
  const url = /massgen web UI: (\S+)/.exec(cli.stdout)?.[1] as string;
  return { cli, url };
}

async function stopWeb(cli: RunningCli): Promise<void> {
  cli.child.kill('SIGINT');
  await cli.result;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  // Fail with the locator that did not show up, well before the test's own timeout.
  page.setDefaultTimeout(15_000);
  return page;
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(!hasChromium)('the web UI in a real browser', () => {
  it(
    'asks a question, streams the panels, shows votes, resets and the final answer, opens a file, survives a dropped socket',
    { timeout: 90_000 },
    async () => {
      fake.server.setHandler(slowConverging);
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        {
          agents: ['a', 'b', 'c'].map((id) =>
            agentEntry(id, fake.server.url, { system_message: persona(id) }),
          ),
        },
        'team.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
      const page = await newPage();
      try {
        // Cut the first WebSocket after a few messages: the page must reconnect and catch up.
        let sockets = 0;
        await page.routeWebSocket(/\/ws/, (ws) => {
          const server = ws.connectToServer();
          const mine = ++sockets;
          let messages = 0;
          server.onMessage((message) => {
            ws.send(message);
            if (mine === 1 && ++messages === 8) ws.close();
          });
        });
        await page.goto(url);
        await page.getByLabel('Question').fill('What is 6 x 7?');
        await expect.poll(() => page.getByLabel('Config').inputValue()).toBe('team.yaml');
        await shot(page, 'web-ask');
        await page.getByRole('button', { name: 'Run' }).click();

        for (const id of ['a', 'b', 'c']) await page.getByRole('region', { name: id, exact: true }).waitFor();
        await page
          .getByRole('region', { name: 'a', exact: true })
          .getByText('a is working on it')
          .first()
          .waitFor();
        await shot(page, 'web-live');

        const final = page.getByRole('region', { name: 'Final answer' });
        await final.getByText(finalAnswerOf('a')).waitFor({ timeout: 30_000 });
        expect(sockets).toBeGreaterThanOrEqual(2);
        const timeline = page.getByRole('region', { name: 'Timeline' });
        // Votes appear; c's late answer struck out the votes cast before it, and they were cast again.
        const votes = page.getByRole('region', { name: 'Votes' });
        await expect.poll(() => votes.getByRole('listitem').count()).toBeGreaterThanOrEqual(4);
        expect(
          await votes.getByRole('listitem').filter({ hasText: '(reset)' }).count(),
        ).toBeGreaterThanOrEqual(1);
        expect(await timeline.getByText(/agent3\.1 reset the votes of (a|b)/).count()).toBe(1);
        // Caught up without duplicates: each answer appears once in the timeline.
        expect(await timeline.getByText('new answer agent1.1').count()).toBe(1);
        await shot(page, 'web-final');

        // The run's log folder: open a logged answer in the preview.
        const files = page.getByRole('region', { name: 'Workspaces' });
        await files.getByRole('button', { name: 'answer.txt' }).first().click();
        await page
          .getByRole('region', { name: 'File preview' })
          .getByText(/Answer by |Final answer from/)
          .first()
          .waitFor();
        await shot(page, 'web-files');
      } finally {
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );

  it('replays a past run from its event log, and shows a clear page for an unknown run', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })) },
      'team.yaml',
    );
    const first = await runCli(['--config', 'team.yaml', '--no-display', 'An earlier question?'], { cwd });
    expect(first.code).toBe(0);
    const { cli, url } = await startWeb(cwd);
    const page = await newPage();
    try {
      await page.goto(url);
      await page.getByRole('button', { name: 'Replay An earlier question?' }).click();
      await page.getByRole('button', { name: 'Jump to end' }).click();
      await page.getByRole('region', { name: 'Final answer' }).getByText(finalAnswerOf('a')).waitFor();
      await shot(page, 'web-replay');

      await page.goto(new URL('/runs/nope', url).toString());
      await page.getByRole('heading', { name: 'No run with id “nope”' }).waitFor();
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });

  it('continues a saved session from the history: the agents see the earlier turn', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })) },
      'team.yaml',
    );
    const first = await startWeb(cwd, ['--config', 'team.yaml']);
    const page = await newPage();
    try {
      await page.goto(first.url);
      await page.getByLabel('Question').fill('First question?');
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByRole('region', { name: 'Final answer' }).getByText(finalAnswerOf('a')).waitFor();
    } finally {
      await stopWeb(first.cli);
    }
    // A new server (as after a restart) lists the session and continues it.
    const second = await startWeb(cwd);
    try {
      await page.goto(second.url);
      const history = page.getByRole('region', { name: 'History' });
      await history.getByLabel('Continue First question?').fill('And the second?');
      await history.getByRole('button', { name: 'Ask' }).click();
      await page.getByRole('heading', { name: 'And the second?' }).waitFor();
      await page.getByRole('region', { name: 'Final answer' }).getByText(finalAnswerOf('a')).waitFor();
      const followUp = fake.server.requests.filter((r) => JSON.stringify(r.body).includes('And the second?'));
      expect(followUp.length).toBeGreaterThan(0);
      expect(followUp.every((r) => JSON.stringify(r.body).includes('First question?'))).toBe(true);
    } finally {
      await page.context().close();
      await stopWeb(second.cli);
    }
  });

  it('a config with errors shows the same diagnostics as --validate in the page', async () => {
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      { agents: [{ id: 'a', backend: { type: 'chatcompletion', model: 'm', temperatur: 1 } }] },
      'broken.yaml',
    );
    const validate = await runCli(['--validate', 'broken.yaml'], { cwd });
    const { cli, url } = await startWeb(cwd);
    const page = await newPage();
    try {
      await page.goto(url);
      await page.getByLabel('Question').fill('Anything?');
      await page.getByLabel('Config').selectOption('broken.yaml');
      await page.getByRole('button', { name: 'Run' }).click();
      const problems = page.getByRole('region', { name: 'Config problems' });
      await problems.waitFor();
      const problem = /^.*unknown key "temperatur".*$/m.exec(validate.stdout)?.[0] as string;
      expect(problem).toBeTruthy();
      expect(await problems.textContent()).toContain(problem);
      await shot(page, 'web-config-error');
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });

  it('holds a tool call until it is approved in the page, shows the file it wrote, and cancels a run', async () => {
    // One agent with a workspace: it writes a file (held for approval), then answers.
    fake.server.setHandler((body) =>
      (body.messages ?? []).some((m) => m.role === 'tool')
        ? { text: 'Wrote notes.txt.' }
        : {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'notes.txt', content: 'approved by a human' } },
            ],
          },
    );
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: [
          agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { cwd: 'ws_a' } }),
        ],
        orchestrator: { auto_approve: false },
      },
      'careful.yaml',
    );
    const { cli, url } = await startWeb(cwd, ['--config', 'careful.yaml']);
    const page = await newPage();
    try {
      await page.goto(url);
      await page.getByLabel('Question').fill('Write the notes.');
      await page.getByRole('button', { name: 'Run' }).click();
      const approvals = page.getByRole('region', { name: 'Approvals' });
      await approvals.getByText(/write_file/).waitFor();
      await shot(page, 'web-approval');
      await approvals.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('region', { name: 'Final answer' }).getByText('Wrote notes.txt.').waitFor();
      await expect.poll(() => approvals.count()).toBe(0);

      const files = page.getByRole('region', { name: 'Workspaces' });
      await files.getByRole('tab', { name: "a's workspace" }).click();
      await files.getByRole('button', { name: 'notes.txt' }).click();
      await page.getByRole('region', { name: 'File preview' }).getByText('approved by a human').waitFor();

      // A follow-up that is cancelled while its tool call waits: the run ends cancelled.
      await page.getByLabel('Follow-up').fill('And again?');
      fake.server.setHandler(() => ({
        toolCalls: [{ name: 'write_file', arguments: { path: 'more.txt', content: 'x' } }],
      }));
      await page.getByRole('button', { name: 'Ask' }).click();
      await approvals.getByText(/more\.txt/).waitFor();
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page.getByText('cancelled', { exact: true }).first().waitFor();
      await shot(page, 'web-cancelled');
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });
});
