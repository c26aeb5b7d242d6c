/**
 * A human answers an agent's `ask_others` question from the live view in a real terminal (tmux, the
 * built CLI; see steering-tmux.test.ts): the question shows in the timeline, `m`, the answer and
 * Enter (in one write) send it, and the asking agent's next request carries it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  makeWorkdir,
  persona,
  toolNames,
  waitFor,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import { recordExitCode, writeCliWrapper } from '../support/tmux-cli-wrapper.js';
import { tmuxServer, tmuxVersion } from '../support/tmux-server.js';

const fake = useFakeServer();
const ANSWER = 'Use Postgres please';

const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

function askingAgent(body: FakeChatRequestBody): FakeResponse {
  const results = toolResults(body);
  if (toolNames(body).includes('ask_others') && results.length === 0)
    return { toolCalls: [{ name: 'ask_others', arguments: { question: 'Which database?' } }] };
  return { text: `Done. ${results.join(' ')}` };
}

describe('ask_others from the live view', () => {
  it.skipIf(tmuxVersion === null)(
    `the human answers with m, the text and Enter; the agent reads it (${tmuxVersion ?? 'skipped: tmux is not on PATH'})`,
    async () => {
      const cwd = makeWorkdir();
      writeConfig(cwd, {
        agents: [agentEntry('a', fake.server.url, { system_message: persona('a') })],
        orchestrator: { coordination: { broadcast: 'human', broadcast_timeout: 300 } },
      });
      fake.server.setHandler(askingAgent);
      const wrapper = writeCliWrapper(cwd, `${recordExitCode(path.join(cwd, 'exit_code'))}\nsleep 600`);
      const tmux = tmuxServer(cwd, { columns: 100, rows: 30 });
      try {
        tmux.start('run', `${wrapper} --config config.yaml "Set up storage"`);
        const seen = () => tmux.seen('run');
        await waitFor(() => tmux.screen('run').includes('ask_others'), 60_000, 'the ask_others call', seen);
        // The timeline (r) has the question.
        tmux.keys('run', 'r');
        await waitFor(
          () => tmux.screen('run').includes('QUESTION from a to you (press m to answer)'),
          60_000,
          'the question in the live view',
          seen,
        );
        tmux.keys('run', `m${ANSWER}`, 'Enter');
        await waitFor(() => fs.existsSync(path.join(cwd, 'exit_code')), 90_000, 'the run to end', seen);
        expect(fs.readFileSync(path.join(cwd, 'exit_code'), 'utf8').trim()).toBe('0');
        const carried = fake.server.requests.flatMap((r) => toolResults(r.body ?? {}));
        expect(carried).toContain(`The human answered: ${ANSWER}`);
      } finally {
        tmux.kill();
      }
    },
    300_000,
  );
});
