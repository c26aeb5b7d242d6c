/**
 * Interactive mode in a real terminal: the BUILT CLI runs inside a detached tmux session (160x50)
 * against the fake OpenAI-compatible server, which runs in this test process. Keys are typed with
 * `tmux send-keys`; the screen is read with `tmux capture-pane -p`. Assertions stay tolerant of the
 * live view's layout: agent ids, a vote line, the final answer text, the prompt.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentEntry,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import { recordExitCode, writeCliWrapper } from '../support/tmux-cli-wrapper.js';
import { tmuxServer, tmuxVersion } from '../support/tmux-server.js';

const fake = useFakeServer();

const IDS = ['alpha', 'beta'] as const;
const Q1 = 'What is 6 times 7?';
const Q2 = 'And what is 6 times 8?';
const bodyText = (body: FakeChatRequestBody | null): string => JSON.stringify(body?.messages ?? []);

/** The CLI in a clean environment; it records its exit code in `exit_code`. */
const writeWrapper = (cwd: string): string =>
  writeCliWrapper(cwd, recordExitCode(path.join(cwd, 'exit_code')));

/** Whether the screen ends with an empty prompt (the turn, and its view, have finished). */
const atPrompt = (screen: string): boolean =>
  screen
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .at(-1) === 'massgen>';

describe('interactive mode in a real terminal', () => {
  describe.skipIf(tmuxVersion === null)(
    tmuxVersion === null ? 'skipped: tmux is not on PATH' : `in ${tmuxVersion}`,
    () => {
      it('two questions, live view, /quit; then --continue shows the 2 earlier turns', async () => {
        fake.server.setHandler(convergingHandler);
        const cwd = makeWorkdir();
        writeConfig(cwd, {
          agents: IDS.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
          timeout_settings: { agent_turn_timeout_seconds: 10, orchestrator_timeout_seconds: 20 },
        });
        const wrapper = writeWrapper(cwd);
        const exitCode = () => {
          const file = path.join(cwd, 'exit_code');
          return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : null;
        };
        const sessionsDir = path.join(cwd, '.massgen', 'sessions');
        const sessionId = () => (fs.existsSync(sessionsDir) ? fs.readdirSync(sessionsDir)[0] : undefined);
        const turnStored = (n: number) => {
          const id = sessionId();
          return id !== undefined && fs.existsSync(path.join(sessionsDir, id, `turn_${n}`, 'metadata.json'));
        };
        const tmux = tmuxServer(cwd, { columns: 160, rows: 50 });
        try {
          tmux.start('first', `${wrapper} --config config.yaml`);
          await waitUntil(() => tmux.screen('first').includes('massgen>'), 'the first prompt', {
            seen: () => tmux.seen('first'),
          });
          expect(tmux.screen('first')).toMatch(/alpha/);
          expect(tmux.screen('first')).toContain('/help');

          tmux.typeLine('first', Q1);
          await waitUntil(() => turnStored(1), 'the first turn to be stored', {
            seen: () => tmux.seen('first'),
          });
          await waitUntil(() => atPrompt(tmux.screen('first')), 'the prompt to return', {
            seen: () => tmux.seen('first'),
          });
          const afterFirst = tmux.screen('first');
          for (const id of IDS) expect(afterFirst).toContain(id);
          expect(afterFirst).toMatch(/vot/i);
          expect(afterFirst).toContain(finalAnswerOf('alpha'));
          expect(afterFirst).toMatch(/final answer/i);

          tmux.typeLine('first', Q2);
          await waitUntil(() => turnStored(2), 'the second turn to be stored', {
            seen: () => tmux.seen('first'),
          });
          await waitUntil(() => atPrompt(tmux.screen('first')), 'the prompt to return', {
            seen: () => tmux.seen('first'),
          });

          const second = fake.server.requests.filter((r) => bodyText(r.body).includes(Q2));
          expect(second.length).toBeGreaterThan(0);
          for (const request of second) {
            expect(bodyText(request.body)).toContain(`User: ${Q1}`);
            expect(bodyText(request.body)).toContain(`Final answer: ${finalAnswerOf('alpha')}`);
          }

          tmux.typeLine('first', '/quit');
          await waitUntil(() => exitCode() !== null, 'massgen to exit', { seen: () => tmux.seen('first') });
          expect(exitCode()).toBe('0');
          const id = sessionId() ?? '';
          expect(id).toMatch(/^session_\d{8}_\d{6}_[0-9a-f]{4}$/);
          const files = fs.readdirSync(path.join(sessionsDir, id)).sort();
          expect(files).toEqual(['session.json', 'summary.md', 'turn_1', 'turn_2']);
          expect(fs.readFileSync(path.join(sessionsDir, id, 'turn_2', 'answer.txt'), 'utf8')).toBe(
            finalAnswerOf('alpha'),
          );

          fs.rmSync(path.join(cwd, 'exit_code'));
          tmux.start('resumed', `${wrapper} --config config.yaml --continue`);
          await waitUntil(() => tmux.screen('resumed').includes('massgen>'), 'the resumed prompt', {
            seen: () => tmux.seen('resumed'),
          });
          const banner = tmux.screen('resumed');
          expect(banner).toContain(id);
          expect(banner).toContain('2 earlier turns');
          expect(banner).toContain(Q1);
          tmux.typeLine('resumed', '/quit');
          await waitUntil(() => exitCode() !== null, 'massgen to exit', { seen: () => tmux.seen('resumed') });
          expect(exitCode()).toBe('0');
        } finally {
          tmux.kill();
        }
      });
    },
  );
});
