/**
 * Steering a run while it goes, end to end: `--inbox-dir` with the built CLI against the fake
 * OpenAI-compatible server (the model sees the message in its next request), and a steered library
 * run whose log replays with the message where it happened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../../src/app/run-massgen.js';
import { readPastEvents } from '../../src/server/web/history.js';
import { gate, ScriptedBackend, step } from '../../src/testing/scripted-backend.js';
import { RunEventSchema, type RunEvent } from '../../src/types/events.js';
import { initialViewState, reduceViewAll } from '../../src/tui/view-state.js';
import {
  agentEntry,
  agentOf,
  convergingHandler,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  startCli,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';

const fake = useFakeServer();

const textOf = (body: FakeChatRequestBody) =>
  (body.messages ?? [])
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

describe('--inbox-dir', () => {
  it('a file dropped in the folder reaches the named agent’s next request, then moves to delivered/', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    });
    const inbox = path.join(cwd, 'inbox');
    const sent = gate();
    // Each agent's first call waits until the message was taken, so both read it at their next step.
    const held = new Set<string>();
    fake.server.setHandler(async (body) => {
      const id = agentOf(body) ?? '?';
      if (!held.has(id)) {
        held.add(id);
        await sent.wait();
      }
      return convergingHandler(body);
    });
    const cli = startCli(
      ['--config', 'config.yaml', '--no-display', '--inbox-dir', 'inbox', 'What is 6 times 7?'],
      {
        cwd,
        env: { OPENAI_API_KEY: 'sk-test' },
        timeoutMs: 60_000,
      },
    );
    await cli.until(() => fake.server.requests.length >= 2, 'both agents to call the model');
    // Written under a skipped name and renamed in: the inbox never reads a half-written file.
    fs.writeFileSync(path.join(inbox, '.note.tmp'), '@beta\nPlease mention Paris in the answer.\n');
    fs.renameSync(path.join(inbox, '.note.tmp'), path.join(inbox, 'note.txt'));
    await cli.until(() => fs.existsSync(path.join(inbox, 'delivered', 'note.txt')), 'the note to be taken');
    sent.open();
    const result = await cli.result;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(fs.existsSync(path.join(inbox, 'note.txt'))).toBe(false);

    const bodies = fake.server.requests.map((r) => r.body as FakeChatRequestBody);
    const beta = bodies.filter((b) => agentOf(b) === 'beta').slice(1);
    expect(beta.some((b) => textOf(b).includes('[Message from the user]'))).toBe(true);
    expect(beta.some((b) => textOf(b).includes('Please mention Paris in the answer.'))).toBe(true);
    for (const b of bodies.filter((b) => agentOf(b) === 'alpha')) expect(textOf(b)).not.toContain('Paris');

    expect(result.stdout).toContain(
      'message from the user (inbox) to beta: Please mention Paris in the answer.',
    );
    const events = readEvents(onlyLogDir(cwd));
    const message = events.find((e) => e.type === 'human.message');
    expect(message).toMatchObject({
      text: 'Please mention Paris in the answer.',
      target: 'beta',
      source: 'inbox',
    });
    expect(events.filter((e) => e.type === 'human.message.delivered').map((e) => e.agentId)).toEqual([
      'beta',
    ]);
  });

  it('a file naming no agent of the run is moved to rejected/ with the reason', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    });
    const inbox = path.join(cwd, 'inbox');
    fs.mkdirSync(inbox);
    const taken = gate();
    fake.server.setHandler(async (body) => {
      await taken.wait();
      return convergingHandler(body);
    });
    const cli = startCli(['--config', 'config.yaml', '--no-display', '--inbox-dir', 'inbox', 'Q?'], {
      cwd,
      env: { OPENAI_API_KEY: 'sk-test' },
      timeoutMs: 60_000,
    });
    await cli.until(() => fake.server.requests.length >= 1, 'the run to start');
    fs.writeFileSync(path.join(inbox, 'x.txt.part'), '@zed\nhello');
    fs.renameSync(path.join(inbox, 'x.txt.part'), path.join(inbox, 'x.txt'));
    const reason = path.join(inbox, 'rejected', 'x.txt.reason.txt');
    await cli.until(() => fs.existsSync(reason), 'the file to be rejected');
    taken.open();
    const result = await cli.result;
    expect(result.code).toBe(0);
    expect(fs.readFileSync(reason, 'utf8')).toMatch(/no agent "zed" in this run: the agents are alpha, beta/);
    expect(result.stderr).toContain('--inbox-dir: x.txt was not sent: no agent "zed"');
  });
});

describe('a steered run in the log', () => {
  it('replays with the message at the point it was sent', async () => {
    const cwd = makeWorkdir();
    const sent = gate();
    const a = new ScriptedBackend([
      { waitFor: sent.wait, toolCalls: [{ name: 'new_answer', arguments: { content: 'Paris.' } }] },
      step.vote('agent1'),
      step.text('Final: Paris'),
    ]);
    const b = new ScriptedBackend([
      { ...step.answer('It is Paris.'), waitFor: sent.wait },
      step.vote('agent1'),
    ]);
    const prepared = await prepareRun({
      question: 'Capital of France?',
      config: {
        agents: [
          { id: 'a', backend: { type: 'chatcompletion', model: 'x' } },
          { id: 'b', backend: { type: 'chatcompletion', model: 'y' } },
        ],
      },
      agents: [
        { id: 'a', backend: a },
        { id: 'b', backend: b },
      ],
      cwd,
      env: {},
      logging: true,
    });
    const seen: RunEvent[] = [];
    expect(prepared.steer({ text: 'too early' })).toMatchObject({ accepted: false, reason: 'not_running' });
    for await (const event of prepared.stream()) {
      seen.push(event);
      if (
        event.type === 'agent.step.started' &&
        seen.filter((e) => e.type === 'agent.step.started').length === 2
      ) {
        expect(prepared.steer({ text: 'Answer in one word.', source: 'api' }).accepted).toBe(true);
        sent.open();
      }
    }
    const result = await prepared.result;
    expect(result.status).toBe('completed');
    const logged = (await readPastEvents(result.logDir ?? ''))!.map((e) => RunEventSchema.parse(e));
    expect(logged.map((e) => e.type)).toEqual(seen.map((e) => e.type));
    const at = logged.findIndex((e) => e.type === 'human.message');
    // After both agents started, before either answered.
    expect(logged.slice(0, at).filter((e) => e.type === 'agent.step.started')).toHaveLength(2);
    expect(logged.slice(0, at).some((e) => e.type === 'answer.submitted')).toBe(false);
    // The terminal view replays it: the timeline has the message between the same events.
    const replayed = reduceViewAll(initialViewState(), logged);
    const kinds = replayed.timeline.map((t) => t.kind);
    expect(kinds.indexOf('human')).toBeLessThan(kinds.indexOf('answer'));
    expect(replayed.timeline.find((t) => t.kind === 'human')?.text).toContain('Answer in one word.');
    expect(replayed.agents['a']?.transcript.some((e) => e.kind === 'human')).toBe(true);
    expect(onlyLogDir(cwd)).toBe(result.logDir);
  });
});
