/**
 * The permission engine and the change review in the web UI, in real headless Chromium against the
 * built CLI (`massgen --web`), driven by accessible names: an `ask` rule's question is answered in the
 * Approvals area, which then shows the audit ledger (the same decisions as `permissions.jsonl`); and
 * the winner's changes to a `write_mode: worktree` repository are reviewed file by file in the review
 * panel and applied in part.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { LedgerEntry } from '../../src/logging/permission-ledger.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  logDirs,
  makeWorkdir,
  persona,
  systemText,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';
import { POLL, waitUntil } from '../support/wait.js';
import { hasChromium, newPage, startWeb, stopWeb, useBrowser, WEB_TEST } from '../support/web-browser.js';

let gitInstalled = true;
try {
  execFileSync('git', ['--version'], { stdio: 'ignore' });
} catch {
  gitInstalled = false;
}
const ARTIFACTS = path.join(REPO_ROOT, 'test', 'artifacts');

const fake = useFakeServer();
const chrome = useBrowser({ artifacts: ARTIFACTS });

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe.skipIf(!hasChromium)('permissions in the web UI', () => {
  it('answers an ask rule in Approvals, and shows the ledger of every decision there', WEB_TEST, async () => {
    fake.server.setHandler((body: FakeChatRequestBody): FakeResponse => {
      const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
      const calls = [
        { name: 'write_file', arguments: { path: 'notes/today.md', content: 'approved in the page' } },
        { name: 'write_file', arguments: { path: 'elsewhere.txt', content: 'x' } },
      ];
      const call = calls[done];
      return call ? { toolCalls: [call] } : { text: 'Notes written.' };
    });
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: [
          agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { cwd: 'ws_a' } }),
        ],
        permissions: [
          { ask: 'write_file', path: 'notes/**' },
          { deny: 'write_file', reason: 'only notes may be written' },
        ],
      },
      'rules.yaml',
    );
    const { cli, url } = await startWeb(cwd, ['--config', 'rules.yaml']);
    const page = await newPage(chrome.browser, { height: 1200 });
    try {
      await page.goto(url);
      await page.getByLabel('Question').fill('Write today’s notes.');
      await page.getByRole('button', { name: 'Run' }).click();
      const approvals = page.getByRole('region', { name: 'Approvals' });
      await approvals.getByText('asked by permissions[0]: ask write_file path=notes/**').waitFor();
      await shot(page, 'web-permission-ask');
      await approvals.getByRole('button', { name: 'Approve write_file for a' }).click();
      await page.getByRole('region', { name: 'Final answer' }).getByText('Notes written.').waitFor();

      const ledger = approvals.getByRole('table', { name: 'Permission decisions' });
      await expect.poll(() => ledger.getByRole('row').count(), POLL).toBe(3);
      const rows = await ledger.getByRole('row').allInnerTexts();
      expect(rows[1]).toMatch(
        /write_file.*notes\/today\.md.*allow\s+web\s+permissions\[0\]: ask write_file path=notes\/\*\*/s,
      );
      expect(rows[2]).toMatch(/write_file.*elsewhere\.txt.*deny\s+rule\s+permissions\[1\]: deny write_file/s);
      expect(await approvals.getByRole('button', { name: /Approve/ }).count()).toBe(0);
      await shot(page, 'web-permission-ledger');

      const logDir = logDirs(cwd)[0] as string;
      const ledgerFile = fs
        .readFileSync(path.join(logDir, 'permissions.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LedgerEntry);
      expect(ledgerFile.map((e) => [e.decision, e.by, e.rule?.label])).toEqual([
        ['allow', 'web', 'permissions[0]'],
        ['deny', 'rule', 'permissions[1]'],
      ]);
      expect(
        fs.readFileSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'notes', 'today.md'), 'utf8'),
      ).toBe('approved in the page');
    } finally {
      await page.context().close();
      await stopWeb(cli);
    }
  });

  it.skipIf(!gitInstalled)(
    'reviews the winner’s changes to a worktree repository file by file and applies the ones ticked',
    WEB_TEST,
    async () => {
      const cwd = makeWorkdir();
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=Me', '-c', 'user.email=me@example.com', ...args], {
          cwd,
          encoding: 'utf8',
        }).trim();
      git('init', '-q', '-b', 'main');
      fs.mkdirSync(path.join(cwd, 'src'));
      fs.writeFileSync(path.join(cwd, 'src', 'app.ts'), lines('export const a = 1;', 'export const b = 2;'));
      git('add', '-A');
      git('commit', '-q', '-m', 'init');
      const edits: Record<string, Record<string, string>> = {
        a: {
          'src/app.ts': lines('export const a = 1;', 'export const b = 20;'),
          'src/new.ts': lines('export {};'),
        },
        b: { 'src/app.ts': lines('export const a = 100;', 'export const b = 2;') },
      };
      fake.server.setHandler((body: FakeChatRequestBody): FakeResponse => {
        const id = agentOf(body) ?? '?';
        if (!toolNames(body).includes('new_answer')) return { text: `final answer by ${id}` };
        const checkout = /^- (\S+) \(your own checkout/m.exec(systemText(body))?.[1] ?? '?';
        const votable = votableIds(body).includes('agent1');
        if (id === 'a' && votable)
          return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'mine' } }] };
        const done = (body.messages ?? []).filter((m) => m.role === 'tool').length;
        const next = Object.entries(edits[id] ?? {})[done];
        if (next)
          return {
            toolCalls: [
              { name: 'write_file', arguments: { path: path.join(checkout, next[0]), content: next[1] } },
            ],
          };
        if (votable)
          return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'good' } }] };
        return { toolCalls: [{ name: 'new_answer', arguments: { content: `${id} edited the app` } }] };
      });
      writeConfig(
        cwd,
        {
          agents: ['a', 'b'].map((id) =>
            agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws_${id}` } }),
          ),
          orchestrator: { context_paths: [{ path: '.', permission: 'write', write_mode: 'worktree' }] },
        },
        'team.yaml',
      );
      const { cli, url } = await startWeb(cwd, ['--config', 'team.yaml']);
      const page = await newPage(chrome.browser, { height: 1200 });
      try {
        await page.goto(url);
        await page.getByLabel('Question').fill('Improve the app.');
        await page.getByRole('button', { name: 'Run' }).click();
        const review = page.getByRole('region', { name: `Review changes to ${fs.realpathSync(cwd)}` });
        await review.getByRole('checkbox', { name: 'Apply src/new.ts' }).waitFor();
        const hunk = review.getByLabel('src/app.ts hunk 1');
        await expect.poll(() => hunk.textContent(), POLL).toContain('+export const b = 20;');
        await shot(page, 'web-review');
        // Nothing reaches the folder before the review.
        expect(fs.readFileSync(path.join(cwd, 'src', 'app.ts'), 'utf8')).toBe(
          lines('export const a = 1;', 'export const b = 2;'),
        );
        await review.getByRole('checkbox', { name: 'Apply src/new.ts' }).uncheck();
        await review.getByRole('button', { name: 'Apply selected (1)' }).click();
        const outcome = review.getByRole('list', { name: 'What was applied' });
        await outcome.getByText('Applied: src/app.ts').waitFor();
        await outcome.getByText('Left out: src/new.ts').waitFor();
        await shot(page, 'web-review-applied');
        await page.getByRole('region', { name: 'Final answer' }).getByText('final answer by a').waitFor();
        expect(fs.readFileSync(path.join(cwd, 'src', 'app.ts'), 'utf8')).toBe(
          lines('export const a = 1;', 'export const b = 20;'),
        );
        expect(fs.existsSync(path.join(cwd, 'src', 'new.ts'))).toBe(false);
        await waitUntil(() => git('branch', '--list', 'massgen/*') === '', 'the branches to go', {
          seen: () => git('branch', '--list'),
        });
        expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      } finally {
        await page.context().close();
        await stopWeb(cli);
      }
    },
  );
});
