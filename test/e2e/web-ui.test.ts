/**
 * The web UI in real headless Chromium (Debian's /usr/bin/chromium through playwright-core), against
 * the built CLI (`massgen --web`) with agents on a local scripted OpenAI-compatible server. Driven by
 * accessible names. Screenshots of each state go to test/artifacts/ (git-ignored).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  votableIds,
  convergingHandler,
  finalAnswerOf,
  logDirs,
  makeWorkdir,
  persona,
  readJson,
  runCli,
  startCli,
  useFakeServer,
  writeConfig,
  type StatusJson,
} from './cli-harness.js';
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

if (!hasChromium) console.warn(`web UI tests skipped: ${CHROMIUM} not found (apt-get install chromium)`);
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');

const fake = useFakeServer();
const chrome = useBrowser({ artifacts: ARTIFACTS });

/**
 * A converging team slow enough to watch (and to cut the socket mid-run) whose third agent answers
 * late: its first answer is held until the run in `cwd` has taken a vote of another agent (status.json
 * says so), so that answer visibly resets the votes — an order that does not depend on the machine.
 */
function slowConverging(cwd: string) {
  const voted = () =>
    logDirs(cwd).some((dir) => {
      const file = path.join(dir, 'status.json');
      if (!fs.existsSync(file)) return false;
      const { agents } = readJson<StatusJson>(file);
      return Object.values(agents).some((agent) => agent.status === 'voted');
    });
  return async (body: FakeChatRequestBody): Promise<FakeResponse> => {
    if (agentOf(body) === 'c' && !votableIds(body).includes('agent1')) {
      await waitUntil(voted, 'a vote of a or b before c answers', {
        seen: () =>
          logDirs(cwd)
            .map((dir) => path.join(dir, 'status.json'))
            .filter((file) => fs.existsSync(file))
            .map((file) => fs.readFileSync(file, 'utf8'))
            .join('\n') || 'no status.json yet',
      });
    }
    return { ...convergingHandler(body), delayMs: 40 };
  };
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

describe.skipIf(!hasChromium)('the web UI in a real browser', () => {
  it(
    'asks a question, streams the panels, shows votes, resets and the final answer, opens a file, survives a dropped socket',
    WEB_TEST,
    async () => {
      const cwd = makeWorkdir();
      fake.server.setHandler(slowConverging(cwd));
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
      const page = await newPage(chrome.browser);
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
        await expect.poll(() => page.getByLabel('Config').inputValue(), POLL).toBe('team.yaml');
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
        await final.getByText(finalAnswerOf('a')).waitFor();
        expect(sockets).toBeGreaterThanOrEqual(2);
        const timeline = page.getByRole('region', { name: 'Timeline' });
        // Votes appear; c's late answer struck out the votes cast before it, and they were cast again.
        const votes = page.getByRole('region', { name: 'Votes' }).getByRole('list', { name: 'Vote list' });
        await expect.poll(() => votes.getByRole('listitem').count(), POLL).toBeGreaterThanOrEqual(4);
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
    const page = await newPage(chrome.browser);
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
    const page = await newPage(chrome.browser);
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
    // The folder's own configs are offered once it is trusted (test/e2e/project-trust.test.ts).
    expect((await runCli(['trust'], { cwd })).code).toBe(0);
    const { cli, url } = await startWeb(cwd);
    const page = await newPage(chrome.browser);
    try {
      await page.goto(url);
      await page.getByLabel('Question').fill('Anything?');
      await page.getByLabel('Config').selectOption('broken.yaml');
      await page.getByRole('button', { name: 'Run' }).click();
      const problems = page.getByRole('region', { name: 'Config problems' });
      await problems.waitFor();
      // --validate names the file once and leads each problem with its line:column; the page says the same.
      const problem = /^ {2}(\d+:\d+: unknown key "temperatur".*)$/m.exec(validate.stdout)?.[1] as string;
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
    const page = await newPage(chrome.browser);
    try {
      await page.goto(url);
      await page.getByLabel('Question').fill('Write the notes.');
      await page.getByRole('button', { name: 'Run' }).click();
      const approvals = page.getByRole('region', { name: 'Approvals' });
      await approvals.getByText(/write_file/).waitFor();
      await shot(page, 'web-approval');
      await approvals.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('region', { name: 'Final answer' }).getByText('Wrote notes.txt.').waitFor();
      // Nothing waits any more; the area keeps the ledger of the decision (docs/permissions.md).
      await expect.poll(() => approvals.getByRole('button', { name: /Approve/ }).count(), POLL).toBe(0);
      await approvals.getByRole('table', { name: 'Permission decisions' }).getByText('web').waitFor();

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

/**
 * The page an attacker serves: it tries to start a run, cancel one and read one on `massgen --web`,
 * and to start a run and read the models on `massgen serve`, with every trick a page has — fetch with
 * `no-cors` (no preflight, simple content type), a CORS fetch, a form POST into a frame, a WebSocket.
 * Each attempt waits for its answer (a fetch settles, a frame loads, a socket closes), so when the page
 * reports, both servers have handled everything it sent. In `?framed` it is the same page in a
 * sandboxed frame (its Origin is `null`) reporting to its parent.
 */
function attackPage(web: number, serve: number, runId: string): string {
  return `<!doctype html><meta charset="utf-8"><body><script>
const WEB = 'http://127.0.0.1:${web}', SERVE = 'http://127.0.0.1:${serve}', RUN = '${runId}';
const framed = location.search.includes('framed');
const outcome = (p) => p.then((r) => (r.type === 'opaque' ? 'opaque' : 'read ' + r.status), (e) => 'blocked: ' + e.name);
const readBody = (p) => p.then((r) => r.text().then((t) => 'read ' + r.status + ' ' + t.slice(0, 200)), (e) => 'blocked: ' + e.name);
function formPost(url, fields) {
  return new Promise((resolve) => {
    const name = 'sink' + Math.random().toString(36).slice(2);
    const frame = document.createElement('iframe');
    frame.name = name;
    frame.onload = () => resolve('posted');
    document.body.append(frame);
    const form = document.createElement('form');
    form.method = 'POST';
    form.action = url;
    form.target = name;
    form.enctype = 'text/plain';
    for (const [key, value] of Object.entries(fields)) {
      const input = document.createElement('input');
      input.name = key;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
  });
}
function socket(url) {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let opened = false, messages = 0;
    ws.onopen = () => (opened = true);
    ws.onmessage = () => {
      messages++;
      ws.close();
    };
    ws.onclose = () => resolve({ opened, messages });
  });
}
async function attack() {
  const start = JSON.stringify({ question: 'pwned', config: 'team.yaml' });
  const chat = JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'pwned' }] });
  const r = {};
  r.startNoCors = await outcome(fetch(WEB + '/api/runs', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: start }));
  r.startCors = await outcome(fetch(WEB + '/api/runs', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: start }));
  r.cancelNoCors = await outcome(fetch(WEB + '/api/runs/' + RUN + '/cancel', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' }));
  r.startForm = await formPost(WEB + '/api/runs', { '{"question":"pwned","config":"team.yaml","x":"': '"}' });
  r.cancelForm = await formPost(WEB + '/api/runs/' + RUN + '/cancel', { '{"x":"': '"}' });
  r.readCors = await readBody(fetch(WEB + '/api/runs/' + RUN, { credentials: 'include' }));
  r.readNoCors = await outcome(fetch(WEB + '/api/runs/' + RUN, { mode: 'no-cors', credentials: 'include' }));
  r.readSocket = await socket('ws://127.0.0.1:${web}/ws?run=' + RUN + '&after=-1');
  r.serveNoCors = await outcome(fetch(SERVE + '/v1/chat/completions', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: chat }));
  r.serveCors = await outcome(fetch(SERVE + '/v1/chat/completions', { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer guess' }, body: chat }));
  r.serveForm = await formPost(SERVE + '/v1/chat/completions', { '{"model":"massgen","messages":[{"role":"user","content":"pwned"}],"x":"': '"}' });
  r.serveRead = await readBody(fetch(SERVE + '/v1/models'));
  return r;
}
attack().then((r) => {
  if (framed) return parent.postMessage(r, '*');
  const frame = document.createElement('iframe');
  frame.sandbox = 'allow-scripts allow-forms';
  frame.src = location.pathname + '?framed';
  window.addEventListener('message', (event) => (window.results = { top: r, framed: event.data }));
  document.body.append(frame);
});
</script>`;
}

describe.skipIf(!hasChromium)('a page elsewhere against massgen --web and massgen serve', () => {
  it('opened from a link on another page: the token leaves the address bar and the page works on its cookie', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, { agents: [agentEntry('a', fake.server.url)] }, 'team.yaml');
    const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
    const links = http.createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><a href="${url}">open massgen</a>`);
    });
    await new Promise<void>((resolve) => links.listen(0, '127.0.0.1', resolve));
    const page = await newPage(chrome.browser);
    try {
      await page.goto(`http://127.0.0.1:${(links.address() as AddressInfo).port}/`);
      await page.getByRole('link', { name: 'open massgen' }).click();
      // Not a redirect here (the Strict cookie might not follow one): the page drops the token itself.
      await page.waitForURL(`${new URL(url).origin}/`);
      await expect.poll(() => page.getByLabel('Config').inputValue(), POLL).toBe('team.yaml');
    } finally {
      links.close();
      await page.context().close();
      await stopWeb(cli);
    }
  });

  it(
    'from another loopback port and from a sandboxed frame (Origin: null), with the user’s cookie: no run started, none cancelled, nothing read',
    WEB_TEST,
    async () => {
      fake.server.setHandler(() => ({ hang: true }));
      const cwd = makeWorkdir();
      writeConfig(
        cwd,
        { agents: ['a', 'b'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })) },
        'team.yaml',
      );
      const { cli: web, url } = await startWeb(cwd, ['--config', 'team.yaml']);
      const serve = startCli(['serve', '--config', 'team.yaml', '--port', '0'], { cwd });
      const attacker = http.createServer((request, response) => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        response.end(attackPage(webPort, servePort, runId));
      });
      let webPort = 0;
      let servePort = 0;
      let runId = '';
      const page = await newPage(chrome.browser);
      try {
        const [, serveKey] = await serve.output(/API key: (\S+)/, 'the serve key');
        const serveUrl = /massgen serve: (\S+)/.exec(serve.stdout)?.[1] as string;
        servePort = Number(new URL(serveUrl).port);
        const token = new URL(url).searchParams.get('token') as string;
        const webBase = new URL(url).origin;
        webPort = Number(new URL(url).port);
        const asUser = { authorization: `Bearer ${token}` };

        // The user's run, waiting on its models.
        const started = await fetch(`${webBase}/api/runs`, {
          method: 'POST',
          headers: { ...asUser, 'Content-Type': 'application/json' },
          body: JSON.stringify({ question: 'The real question', config: 'team.yaml' }),
        });
        expect(started.status).toBe(201);
        runId = ((await started.json()) as { id: string }).id;
        await web.until(() => fake.server.requests.length === 2, 'both agents calling their model');

        // The user has the web UI open: the browser holds its cookie, which cookies' rules also attach to
        // requests from any other port of 127.0.0.1.
        await page.goto(url);
        await page.getByLabel('Question').first().waitFor();
        expect(page.url()).toBe(`${webBase}/`);
        const cookies = await page.context().cookies(webBase);
        expect(cookies).toEqual([
          expect.objectContaining({ name: `massgen_token_${webPort}`, httpOnly: true, sameSite: 'Strict' }),
        ]);

        await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
        const evil = await page.context().newPage();
        await evil.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/attack.html`);
        const results = (await (
          await evil.waitForFunction(() => (globalThis as { results?: unknown }).results)
        ).jsonValue()) as Record<'top' | 'framed', Record<string, unknown>>;

        // State: still the one run, not cancelled; no model call beyond its two; serve ran nothing.
        const runs = (await (await fetch(`${webBase}/api/runs`, { headers: asUser })).json()) as {
          live: { id: string; question: string; done: boolean }[];
        };
        expect(runs.live).toEqual([
          expect.objectContaining({ id: runId, question: 'The real question', done: false }),
        ]);
        expect(fake.server.requests).toHaveLength(2);
        const health = await fetch(serveUrl.replace(/\/v1$/, '/health'), {
          headers: { authorization: `Bearer ${serveKey}` },
        });
        expect(((await health.json()) as { runs: unknown }).runs).toEqual({ running: 0, waiting: 0 });
        expect(serve.stderr).not.toMatch(/^run /m);

        for (const where of ['top', 'framed'] as const) {
          const r = results[where] as Record<string, unknown>;
          // Reads: nothing came back, not over fetch (CORS, no-cors) nor the socket.
          expect(r['readCors'], where).toMatch(/^blocked/);
          expect(r['readNoCors'], where).toMatch(/^(opaque|blocked)/);
          expect(r['readSocket'], where).toEqual({ opened: false, messages: 0 });
          expect(r['serveRead'], where).toMatch(/^blocked/);
          expect(r['serveCors'], where).toMatch(/^blocked/);
          expect(r['startCors'], where).toMatch(/^blocked/);
        }
        // The user's own page still works: it cancels the run.
        await page.goto(`${webBase}/runs/${runId}`);
        await page.getByRole('button', { name: 'Cancel run' }).click();
        await page.getByText('cancelled', { exact: true }).first().waitFor();
      } finally {
        attacker.close();
        await page.context().close();
        serve.child.kill('SIGINT');
        await serve.result;
        await stopWeb(web);
      }
    },
  );
});

describe('massgen --web flags', () => {
  it('--no-auth serves without a token on loopback with a warning, and is refused beyond it', async () => {
    const cwd = makeWorkdir();
    const refused = await runCli(['--web', '--port', '0', '--host', '0.0.0.0', '--no-auth'], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'massgen: error: cannot start the web UI: --no-auth is refused on 0.0.0.0: anyone who can reach it could run your agents\nhint: drop --no-auth (a token is generated), or listen on 127.0.0.1\n',
    );
    const { cli, url } = await startWeb(cwd, ['--no-auth', '--allowed-host', 'massgen.test']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      await cli.output(/--no-auth/, 'the warning', { stream: 'stderr' });
      expect(cli.stderr).toMatch(
        /^massgen: warning: --no-auth: every program and user on this machine can start runs/,
      );
      expect((await fetch(new URL('/api/configs', url))).status).toBe(200);
    } finally {
      await stopWeb(cli);
    }
  });
});
