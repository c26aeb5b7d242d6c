/**
 * Step mode end to end: a three-agent coordination driven entirely by `massgen step` calls in a shell
 * loop — each call one agent, one action, the state in a session folder — reaches the winner and the
 * final answer the same scripted team reaches in a normal run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/util/find-executable.js';
import { runProcess } from '../support/run-process.js';
import {
  agentEntry,
  CLI_BIN,
  cleanEnv,
  convergingHandler,
  finalAnswerOf,
  linesOf,
  makeWorkdir,
  persona,
  runCli,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';

const fake = useFakeServer();
const bash = findExecutable('bash', process.env.PATH);
const noBash = bash ? '' : ' (skipped: no bash on PATH)';

const QUESTION = 'What is 6 times 7?';

/** One line `massgen step` printed (the fields the test reads). */
interface StepLine {
  agent: string;
  action: { type: string; content?: string };
  standing: { next: string };
  log_dir: string;
}

/** The outside orchestrator: a plain shell loop over the agents until the standing says "present". */
const LOOP = `#!/usr/bin/env bash
set -euo pipefail
step() { node "$MASSGEN_BIN" step --session-dir session --config team.yaml "$@"; }
out=''
for round in 1 2 3 4 5; do
  for agent in alpha beta gamma; do
    out=$(step --agent "$agent" "$QUESTION")
    printf '%s\\n' "$out" >> steps.jsonl
    case "$out" in *'"next":"present"'*) break 2 ;; esac
  done
done
winner=$(printf '%s' "$out" | sed -n 's/.*"winner":"\\([^"]*\\)".*/\\1/p')
step --agent "$winner" --present >> steps.jsonl
echo "WINNER: $winner"
`;

function runScript(cwd: string, file: string) {
  return runProcess(bash as string, [file], {
    cwd,
    env: cleanEnv(cwd, { MASSGEN_BIN: CLI_BIN, QUESTION }),
    timeoutMs: 120_000,
  });
}

function team() {
  return {
    agents: ['alpha', 'beta', 'gamma'].map((id) =>
      agentEntry(id, fake.server.url, { system_message: persona(id) }),
    ),
    timeout_settings: { agent_turn_timeout_seconds: 30, orchestrator_timeout_seconds: 60 },
  };
}

describe('massgen step', () => {
  it.skipIf(!bash)(
    `a shell loop of massgen step calls reaches the same winner and final answer as a normal run${noBash}`,
    async () => {
      fake.server.setHandler(convergingHandler);
      const normalDir = makeWorkdir();
      writeConfig(normalDir, team(), 'team.yaml');
      const normal = await runCli(['--config', 'team.yaml', '--automation', QUESTION], { cwd: normalDir });
      expect(normal.code).toBe(0);
      const normalWinner = /^WINNER: (\S+)$/m.exec(normal.stdout)?.[1];
      expect(normalWinner).toBe('alpha');

      const cwd = makeWorkdir();
      writeConfig(cwd, team(), 'team.yaml');
      fs.writeFileSync(path.join(cwd, 'loop.sh'), LOOP);
      const looped = await runScript(cwd, 'loop.sh');
      expect(looped.stderr).toBe('');
      expect(looped.code).toBe(0);
      expect(looped.stdout).toContain(`WINNER: ${normalWinner}`);

      const steps = linesOf(fs.readFileSync(path.join(cwd, 'steps.jsonl'), 'utf8')).map(
        (line) => JSON.parse(line) as StepLine,
      );
      // alpha answers first, the others vote for it, alpha votes for its own answer: consensus.
      expect(steps.map((s) => [s.agent, s.action.type])).toEqual([
        ['alpha', 'new_answer'],
        ['beta', 'vote'],
        ['gamma', 'vote'],
        ['alpha', 'vote'],
        ['alpha', 'final_answer'],
      ]);
      expect(steps[0]).toMatchObject({
        version: 1,
        status: 'completed',
        counted: true,
        action: { label: 'agent1.1' },
      });
      expect(steps[3]!.standing).toMatchObject({
        consensus: true,
        winner: 'alpha',
        tallies: { alpha: 3 },
        next: 'present',
      });
      const final = steps.at(-1)!;
      expect(final.action.content).toBe(finalAnswerOf('alpha'));
      expect(final.standing.next).toBe('done');
      expect(fs.existsSync(final.log_dir)).toBe(true);
      expect(path.dirname(final.log_dir)).toBe(path.join(cwd, 'session', 'logs'));

      // The state: versioned, the roster in config order, every action.
      const session = JSON.parse(fs.readFileSync(path.join(cwd, 'session', 'session.json'), 'utf8'));
      expect(session).toMatchObject({ version: 1, question: QUESTION, agents: ['alpha', 'beta', 'gamma'] });
      expect(session.actions.map((a: { type: string }) => a.type)).toEqual([
        'new_answer',
        'vote',
        'vote',
        'vote',
        'final_answer',
      ]);

      // Stepping an agent that holds a current vote calls no model.
      const before = fake.server.requests.length;
      const skipped = await runCli(
        ['step', '--session-dir', 'session', '--config', 'team.yaml', '--agent', 'beta'],
        { cwd },
      );
      expect(JSON.parse(skipped.stdout)).toMatchObject({ status: 'skipped', action: null });
      expect(fake.server.requests.length).toBe(before);
      const status = await runCli(['step', '--session-dir', 'session', '--status'], { cwd });
      expect(JSON.parse(status.stdout)).toMatchObject({ consensus: true, winner: 'alpha', next: 'done' });
    },
  );

  it('refuses a session written by a newer massgen, a mismatched question and an unknown agent', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, team(), 'team.yaml');
    fs.mkdirSync(path.join(cwd, 'newer'));
    fs.writeFileSync(
      path.join(cwd, 'newer', 'session.json'),
      JSON.stringify({ version: 2, question: 'q', agents: [], actions: [], whatever: {} }),
    );
    const newer = await runCli(
      ['step', '--session-dir', 'newer', '--config', 'team.yaml', '--agent', 'alpha'],
      { cwd },
    );
    expect(newer.code).toBe(1);
    expect(newer.stderr).toMatch(
      /written by a newer massgen \(session format version 2; this massgen reads version 1\)/,
    );
    expect(newer.stderr).toMatch(/hint: upgrade massgen/);

    fs.mkdirSync(path.join(cwd, 'other'));
    fs.writeFileSync(
      path.join(cwd, 'other', 'session.json'),
      JSON.stringify({ version: 1, question: 'Another question', agents: [], actions: [] }),
    );
    const other = await runCli(
      ['step', '--session-dir', 'other', '--config', 'team.yaml', '--agent', 'alpha', QUESTION],
      {
        cwd,
      },
    );
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/a session about another question/);

    const unknown = await runCli(
      ['step', '--session-dir', 's', '--config', 'team.yaml', '--agent', 'zed', QUESTION],
      {
        cwd,
      },
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/has no agent "zed" \(it has: alpha, beta, gamma\)/);
    expect(fake.server.requests).toHaveLength(0);
  });
});
