/**
 * Steering from the live view in a real terminal: the BUILT CLI runs in a detached 80x30 tmux session
 * against the fake OpenAI-compatible server in this process (see interactive-tmux.test.ts). `m`, a
 * typed line and Enter send a message the model then reads; the final answer's Markdown is rendered
 * (no raw `##` or `**` on screen).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gate } from '../../src/testing/scripted-backend.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  logDirs,
  makeWorkdir,
  persona,
  toolNames,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';
import { recordExitCode, writeCliWrapper } from '../support/tmux-cli-wrapper.js';
import { tmuxServer, tmuxVersion } from '../support/tmux-server.js';

const fake = useFakeServer();
const MESSAGE = 'Please answer in French.';
const FINAL = '## Résumé\n\n**Paris** est la *capitale*.\n\n- premier point\n- second point\n';
const bodyText = (body: FakeChatRequestBody): string => JSON.stringify(body.messages ?? []);

/**
 * The CLI in a clean environment; it records its exit code in `exit_code`, then sleeps so the pane
 * (and its last screen) stays after the CLI exits.
 */
const writeWrapper = (cwd: string): string =>
  writeCliWrapper(cwd, `${recordExitCode(path.join(cwd, 'exit_code'))}\nsleep 600`);

/** The run's events so far, from its log's journal. */
function journal(cwd: string): { type: string }[] {
  const dir = logDirs(cwd)[0];
  const file = dir ? path.join(dir, 'events.jsonl') : '';
  if (!dir || !fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { type: string }];
      } catch {
        return [];
      }
    });
}

/*
 * How the keys reach the terminal: tmux writes each `send-keys` to the pane in one write, so the CLI
 * reads the text and its Enter (or `m` and all that follows) in one chunk, as on a busy machine or a
 * slow SSH link. Each key must still count.
 */

describe('steering from the live view', () => {
  it.skipIf(tmuxVersion === null).each([
    ['`m`, then the text and Enter in one write', false],
    ['`m`, the text and Enter, all in one write', true],
  ])(
    `%s: the model reads the message next; the final answer's Markdown is rendered (${tmuxVersion ?? 'skipped: tmux is not on PATH'})`,
    async (_name, allInOne) => {
      const cwd = makeWorkdir();
      writeConfig(cwd, {
        agents: ['alpha', 'beta'].map((id) =>
          agentEntry(id, fake.server.url, { system_message: persona(id) }),
        ),
        timeout_settings: { agent_turn_timeout_seconds: 60, orchestrator_timeout_seconds: 120 },
      });
      const sent = gate();
      const held = new Set<string>();
      fake.server.setHandler(async (body) => {
        const id = agentOf(body) ?? '?';
        // Each agent's first call waits until the message is in; the presentation is Markdown.
        if (!held.has(id)) {
          held.add(id);
          await sent.wait();
        }
        if (!toolNames(body).includes('new_answer')) return { text: FINAL, chunkSize: 9 };
        return convergingHandler(body);
      });
      const wrapper = writeWrapper(cwd);
      const tmux = tmuxServer(cwd, { columns: 80, rows: 30 });
      try {
        tmux.start('run', `${wrapper} --config config.yaml "Capital of France?"`);
        const seen = () => tmux.seen('run');
        await waitUntil(() => fake.server.requests.length >= 2, 'both agents to call the model', { seen });
        await waitUntil(() => tmux.screen('run').includes('m message'), 'the key hints', { seen });
        // The footer fits 80 columns with the steering keys in it.
        const hints =
          tmux
            .screen('run')
            .split('\n')
            .find((l) => l.includes('m message')) ?? '';
        expect(hints).toContain('a answer now');
        expect(hints).toContain('q cancel');
        // One `send-keys` is one write to the pane: the CLI reads all its keys in one chunk.
        if (allInOne) {
          tmux.keys('run', `m${MESSAGE}`, 'Enter');
        } else {
          tmux.keys('run', 'm');
          await waitUntil(() => tmux.screen('run').includes('✉ to every agent ›'), 'the message input', {
            seen,
          });
          tmux.keys('run', MESSAGE, 'Enter');
        }
        await waitUntil(() => journal(cwd).some((e) => e.type === 'human.message'), 'the run to take it', {
          seen,
        });
        sent.open();
        await waitUntil(() => fs.existsSync(path.join(cwd, 'exit_code')), 'the run to end', {
          timeoutMs: 90_000,
          seen,
        });
        expect(fs.readFileSync(path.join(cwd, 'exit_code'), 'utf8').trim()).toBe('0');

        // The models read it in their next requests.
        const bodies = fake.server.requests.map((r) => r.body as FakeChatRequestBody);
        for (const id of ['alpha', 'beta']) {
          const later = bodies.filter((b) => agentOf(b) === id).slice(1);
          expect(later.some((b) => bodyText(b).includes(MESSAGE))).toBe(true);
        }
        const screen = tmux.screen('run');
        expect(screen).toContain('Résumé');
        expect(screen).toContain('Paris est la capitale.');
        expect(screen).toContain('• premier point');
        expect(screen).not.toMatch(/## Résumé|\*\*Paris\*\*|\*capitale\*/);
      } finally {
        tmux.kill();
      }
    },
    // Generous: a loaded 2-core machine may take a while to draw the live view and take the keys.
    300_000,
  );
});
