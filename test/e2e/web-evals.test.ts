/**
 * An eval in the web UI's History, in real headless Chromium (as web-ui.test.ts): `massgen eval` writes
 * its report to `.massgen/evals/arith` with scripted agents (the careful one right, the hasty one
 * wrong), then `massgen --web` lists it; opening it by its accessible name shows the accuracy table
 * and the chart as an image (loaded, and served as `image/svg+xml` under a CSP sandbox).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeRequestView, FakeResponse } from '../../src/testing/index.js';
import { agentEntry, makeWorkdir, persona, runCli, useFakeServer, writeConfig } from './cli-harness.js';
import { hasChromium, newPage, startWeb, stopWeb, useBrowser } from '../support/web-browser.js';
import { POLL } from '../support/wait.js';

const fake = useFakeServer();
const chrome = useBrowser();

/** Question qK asks for 10·K; careful answers it, hasty answers one more; the team presents 10·K. */
function team(_body: unknown, _index: number, view: FakeRequestView): FakeResponse {
  const k = Number(/Question q(\d+):/.exec(view.text)?.[1]);
  if (!view.toolNames.includes('new_answer')) return { text: `The team's answer: ${10 * k}.` };
  const agent = /You are the agent called (\S+)\./.exec(view.system)?.[1] as string;
  if (view.text.includes(`[${agent}]`) && view.votableIds.length > 0)
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: view.votableIds[0], reason: 'ok' } }] };
  const value = agent === 'careful' ? 10 * k : 10 * k + 1;
  return { toolCalls: [{ name: 'new_answer', arguments: { content: `[${agent}] It is ${value}.` } }] };
}

describe.skipIf(!hasChromium)('an eval in the web UI', () => {
  it('lists the eval in the History; opening it shows the accuracy table and the chart image', async () => {
    fake.server.setHandler(team);
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: ['careful', 'hasty'].map((id) =>
          agentEntry(id, fake.server.url, { system_message: persona(id) }),
        ),
        ui: { logging_enabled: false },
      },
      'team.yaml',
    );
    fs.writeFileSync(
      path.join(cwd, 'qa.jsonl'),
      [1, 2, 3]
        .map(
          (k) =>
            `${JSON.stringify({ id: `q${k}`, question: `Question q${k}: what is ${k} times 10?`, answer: 10 * k })}\n`,
        )
        .join(''),
    );
    const ran = await runCli(
      [
        'eval',
        '--config',
        'team.yaml',
        '--dataset',
        'qa.jsonl',
        '--scorer',
        'numeric',
        '--output',
        '.massgen/evals/arith',
      ],
      { cwd, timeoutMs: 120_000 },
    );
    expect(ran.code, ran.stderr).toBe(0);

    const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
    try {
      const page = await newPage(chrome.browser);
      await page.goto(url);
      const history = page.getByRole('region', { name: 'History' });
      await history.getByRole('button', { name: 'Eval .massgen/evals/arith' }).click();
      const table = page.getByRole('table', { name: 'Accuracy of eval .massgen/evals/arith' });
      const row = (name: string) =>
        table.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
      await expect.poll(() => row('team').innerText(), POLL).toContain('3/3');
      expect(await row('team').innerText()).toContain('100.0%');
      expect(await row('single:hasty').innerText()).toContain('0/3');
      expect(await row('single:hasty').innerText()).toContain('0.0%');
      // Wilson's 95% interval of 3/3 starts at 43.9%.
      expect(await row('team').innerText()).toContain('43.9% – 100.0%');

      const chart = page.getByRole('img', { name: 'Accuracy against cost, eval .massgen/evals/arith' });
      await expect
        .poll(() =>
          chart.evaluate((img) => {
            const image = img as unknown as { complete: boolean; naturalWidth: number };
            return image.complete ? image.naturalWidth : 0;
          }),
        )
        .toBeGreaterThan(0);
      const headers = await page.evaluate(async () => {
        const r = await fetch('/api/evals/chart?id=.massgen%2Fevals%2Farith');
        return {
          type: r.headers.get('content-type'),
          nosniff: r.headers.get('x-content-type-options'),
          csp: r.headers.get('content-security-policy'),
        };
      });
      expect(headers.type).toBe('image/svg+xml');
      expect(headers.nosniff).toBe('nosniff');
      expect(headers.csp).toMatch(/^sandbox;/);
      // Only listed evals are served: a path outside them is refused.
      const refused = await page.evaluate(
        async () => (await fetch('/api/evals/chart?id=..%2F..%2Fetc')).status,
      );
      expect(refused).toBe(404);
      await page.context().close();
    } finally {
      await stopWeb(cli);
    }
  }, 240_000);
});
