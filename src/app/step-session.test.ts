import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import {
  parseStepSession,
  readStepSession,
  stepRecordOf,
  updateStepSession,
  type StepSession,
} from './step-session.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-step-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const session: StepSession = {
  version: 1,
  question: 'What is 6 x 7?',
  agents: ['a', 'b'],
  actions: [
    { type: 'new_answer', agent: 'a', label: 'agent1.1', content: '42', at: '2026-01-01T00:00:00.000Z' },
    { type: 'vote', agent: 'b', target: 'a', target_label: 'agent1.1', reason: 'right', at: 'x' },
    { type: 'final_answer', agent: 'a', content: 'It is 42.', at: 'y' },
  ],
};

describe('step session file', () => {
  it('refuses a newer format version by name, and a file that is not a session', () => {
    expect(() => parseStepSession({ ...session, version: 3 }, 'x.json')).toThrow(
      /x\.json: written by a newer massgen \(session format version 3; this massgen reads version 1\)/,
    );
    expect(() => parseStepSession({ question: 'q' }, 'x.json')).toThrow(/not a massgen step session/);
    expect(() => parseStepSession({ ...session, agents: 'a' }, 'x.json')).toThrow(ConfigError);
    expect(() =>
      parseStepSession({ ...session, actions: [{ type: 'shout', agent: 'a', at: 'z' }] }, 'x.json'),
    ).toThrow(/actions\.0/);
  });

  it('keeps keys an outside loop added, and replays only answers and votes', () => {
    const parsed = parseStepSession({ ...session, ci_job: 17 }, 'x.json');
    expect((parsed as Record<string, unknown>).ci_job).toBe(17);
    expect(stepRecordOf(parsed)).toEqual([
      { type: 'new_answer', agentId: 'a', content: '42' },
      { type: 'vote', agentId: 'b', targetAgentId: 'a', reason: 'right' },
    ]);
    expect(stepRecordOf(null)).toEqual([]);
  });

  it('writes under a lock: concurrent updates all land, and no lock or temporary file is left', async () => {
    const dir = tempDir();
    expect(readStepSession(dir)).toBeNull();
    const add = (agent: string) =>
      updateStepSession(dir, (current) => ({
        version: 1,
        question: 'q',
        agents: [...(current?.agents ?? []), agent],
        actions: current?.actions ?? [],
      }));
    await Promise.all(['a', 'b', 'c', 'd'].map(add));
    expect(readStepSession(dir)?.agents.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(fs.readdirSync(dir)).toEqual(['session.json']);
  });

  it('takes over a lock left by a process that is gone', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'session.lock'), '999999999');
    await updateStepSession(dir, () => session);
    expect(readStepSession(dir)?.question).toBe(session.question);
  });
});
