import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../types/events.js';
import type { SteeringMessage, SteerResult } from '../types/steering-events.js';
import { watchInbox } from './inbox-dir.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-inbox-'));
  dirs.push(dir);
  const sent: SteeringMessage[] = [];
  const state = { running: false };
  const steer = (message: SteeringMessage): SteerResult => {
    if (!state.running) return { accepted: false, reason: 'not_running', message: 'not yet' };
    if (message.agentId !== undefined && !['alpha', 'beta'].includes(message.agentId))
      return { accepted: false, reason: 'unknown_agent', message: `no agent "${message.agentId}"` };
    sent.push(message);
    return { accepted: true, seq: sent.length };
  };
  return { dir, sent, state, steer };
}

const started = {
  type: 'run.started',
  runId: 'r',
  seq: 0,
  ts: 0,
  question: 'Q',
  settings: {},
  agents: [
    { agentId: 'alpha', anonymousId: 'agent1', backendType: 'x', model: 'm' },
    { agentId: 'beta', anonymousId: 'agent2', backendType: 'x', model: 'm' },
  ],
} as RunEvent;

describe('--inbox-dir', () => {
  it('turns files into messages (to one agent with a first line @id or @agentN), then files them away', async () => {
    const { dir, sent, state, steer } = setUp();
    const rejected: string[] = [];
    const inbox = await watchInbox(path.join(dir, 'in'), {
      steer,
      onRejected: (file, reason) => rejected.push(`${file}: ${reason}`),
      pollMs: 60_000,
    });
    const folder = path.join(dir, 'in');
    fs.writeFileSync(path.join(folder, 'a.txt'), 'For everyone.\n');
    fs.writeFileSync(path.join(folder, 'b.txt'), '@agent2\nOnly for beta.');
    fs.writeFileSync(path.join(folder, 'c.md'), '@alpha  \r\nOnly for alpha.');
    fs.writeFileSync(path.join(folder, 'd.txt'), '@zed\nnobody');
    fs.writeFileSync(path.join(folder, '.hidden'), 'left alone');
    fs.writeFileSync(path.join(folder, 'e.txt.part'), 'left alone');
    // Before the run has started, files wait where they are.
    await inbox.check();
    expect(fs.readdirSync(path.join(folder, 'delivered'))).toEqual([]);
    state.running = true;
    inbox.handle(started);
    await inbox.check();
    expect(sent).toEqual([
      { text: 'For everyone.\n', source: 'inbox' },
      { text: 'Only for beta.', source: 'inbox', agentId: 'beta' },
      { text: 'Only for alpha.', source: 'inbox', agentId: 'alpha' },
    ]);
    expect(fs.readdirSync(path.join(folder, 'delivered')).sort()).toEqual(['a.txt', 'b.txt', 'c.md']);
    expect(fs.readdirSync(path.join(folder, 'rejected')).sort()).toEqual(['d.txt', 'd.txt.reason.txt']);
    expect(rejected).toEqual(['d.txt: no agent "zed"']);
    expect(fs.readdirSync(folder).sort()).toEqual(['.hidden', 'delivered', 'e.txt.part', 'rejected']);
    // A second file of the same name does not overwrite the first.
    fs.writeFileSync(path.join(folder, 'a.txt'), 'Again.');
    await inbox.check();
    expect(fs.readdirSync(path.join(folder, 'delivered')).sort()).toEqual([
      'a-1.txt',
      'a.txt',
      'b.txt',
      'c.md',
    ]);
    await inbox.stop();
  });
});
