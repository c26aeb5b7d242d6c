/**
 * The massgen Agent Skill: `massgen skill install` puts it where each coding agent looks, and its
 * helper script runs a team in the background (the built CLI against the fake server), polls it and
 * reads the result — what the skill tells an agent to do when the MCP server is not registered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../support/run-process.js';
import {
  agentEntry,
  CLI_BIN,
  cleanEnv,
  convergingHandler,
  finalAnswerOf,
  makeWorkdir,
  persona,
  runCli,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';

const fake = useFakeServer();

/** Runs the installed helper script without blocking the fake server. */
function helper(cwd: string, script: string, args: string[]) {
  return runProcess(process.execPath, [script, ...args], {
    cwd,
    env: cleanEnv(cwd, { MASSGEN_BIN: `${process.execPath} ${CLI_BIN}` }),
    timeoutMs: 60_000,
  });
}

describe('massgen skill', () => {
  it('installs into each coding agent’s documented skills folder, project or user', async () => {
    const cwd = makeWorkdir();
    const home = path.join(cwd, 'home');
    fs.mkdirSync(home);
    const install = (...args: string[]) =>
      runCli(['skill', 'install', ...args], { cwd, env: { HOME: home } });
    expect((await install()).stdout).toContain(path.join(cwd, '.claude', 'skills', 'massgen'));
    await install('--target', 'codex');
    await install('--target', 'gemini', '--user');
    const again = await install();
    expect(again.stdout).toMatch(/^Updated the massgen skill/);
    for (const dir of [
      path.join(cwd, '.claude', 'skills', 'massgen'),
      path.join(cwd, '.agents', 'skills', 'massgen'),
      path.join(home, '.gemini', 'skills', 'massgen'),
    ]) {
      const skill = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
      expect(skill).toMatch(/^---\nname: massgen\ndescription: .+\n---\n/);
      expect(fs.statSync(path.join(dir, 'scripts', 'massgen-team.mjs')).mode & 0o111).not.toBe(0);
    }
    const bad = await runCli(['skill', 'install', '--target', 'vim'], { cwd });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--target.*vim.*claude, codex, gemini/);
  });

  it('the helper script starts a run in the background, polls it and reads the result', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(
      cwd,
      {
        agents: ['alpha', 'beta'].map((id) =>
          agentEntry(id, fake.server.url, { system_message: persona(id) }),
        ),
      },
      'team.yaml',
    );
    await runCli(['skill', 'install'], { cwd });
    const script = path.join(cwd, '.claude', 'skills', 'massgen', 'scripts', 'massgen-team.mjs');

    const started = await helper(cwd, script, ['start', '--config', 'team.yaml', 'What is 6 times 7?']);
    expect(started.stderr).toBe('');
    const { log_dir: logDir, pid } = JSON.parse(started.stdout) as { log_dir: string; pid: number };
    expect(fs.existsSync(path.join(logDir, 'status.json'))).toBe(true);

    const status = await helper(cwd, script, ['status', logDir]);
    expect(JSON.parse(status.stdout)).toHaveProperty('phase');
    const result = await helper(cwd, script, ['result', logDir, '--wait', '50']);
    expect(JSON.parse(result.stdout)).toMatchObject({
      done: true,
      status: 'completed',
      winner: 'alpha',
      final_answer: finalAnswerOf('alpha'),
    });
    // The result is readable before the background massgen has closed its log folder: let it exit
    // before the folder is removed.
    // (A zombie counts as gone: the helper detached it, and whoever reaps orphans here may not.)
    const alive = () => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
      } catch {
        return false;
      }
    };
    await waitUntil(() => !alive(), 'the background run to exit');
  });
});
