/**
 * Agent Skills through the built CLI (docs/skills.md): a skill's name and description reach the
 * scripted model's system prompt, its body only comes back from load_skill, its script runs through
 * execute_command inside bubblewrap (no capabilities, the home hidden), a malformed SKILL.md is one
 * warning naming the file, a proposed skill is saved and accepted, and `massgen skills` manages folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import type { RunEvent } from '../../src/types/events.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  systemText,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
const sandbox = sandboxSupport(process.env.PATH);

const BODY_MARKER = 'PROBE-BODY-MARKER: run scripts/probe.sh with a path to check';

/** A skill folder `probe` with a script, and a malformed one, under `cwd/skills`. */
function writeSkills(cwd: string): void {
  const probe = path.join(cwd, 'skills', 'probe');
  fs.mkdirSync(path.join(probe, 'scripts'), { recursive: true });
  fs.writeFileSync(
    path.join(probe, 'SKILL.md'),
    `---\nname: probe\ndescription: Probes the sandbox a command runs in. Use when asked about the sandbox.\n---\n\n# Probe\n\n${BODY_MARKER}\n`,
  );
  fs.writeFileSync(
    path.join(probe, 'scripts', 'probe.sh'),
    '#!/bin/sh\ngrep CapEff /proc/self/status\nif [ -e "$1" ]; then echo "home: visible"; else echo "home: hidden"; fi\necho "script dir: $(dirname "$0")"\n',
    { mode: 0o755 },
  );
  const broken = path.join(cwd, 'skills', 'broken');
  fs.mkdirSync(broken, { recursive: true });
  fs.writeFileSync(path.join(broken, 'SKILL.md'), '---\nname: broken\n---\nNo description.\n');
}

/** The text of every tool result the request carries. */
const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

const finishedCalls = (events: RunEvent[], agentId: string) =>
  events.filter(
    (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
      e.type === 'tool.call.finished' && e.agentId === agentId,
  );

describe('Agent Skills through the CLI', () => {
  it.skipIf(!sandbox.ok)(
    `lists skills in the prompt, loads one on request and runs its script in bwrap${sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`}`,
    async () => {
      const cwd = makeWorkdir();
      writeSkills(cwd);
      const secret = path.join(cwd, 'secret.txt');
      fs.writeFileSync(secret, 'in the home\n');
      fake.server.setHandler((body): FakeResponse => {
        const id = agentOf(body) ?? '?';
        if (!toolNames(body).includes('new_answer')) return { text: `final by ${id}` };
        if (votableIds(body).includes('agent1'))
          return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'probed' } }] };
        if (id === 'b') return { toolCalls: [{ name: 'new_answer', arguments: { content: 'b guesses' } }] };
        const results = toolResults(body);
        if (results.includes('CapEff'))
          return { toolCalls: [{ name: 'new_answer', arguments: { content: 'probed the sandbox' } }] };
        if (results.includes('PROBE-BODY-MARKER')) {
          const folder = /Folder: (\S+)/.exec(results)?.[1] ?? '?';
          return {
            toolCalls: [
              { name: 'execute_command', arguments: { command: `sh ${folder}/scripts/probe.sh ${secret}` } },
            ],
          };
        }
        return { toolCalls: [{ name: 'load_skill', arguments: { name: 'probe' } }] };
      });
      writeConfig(cwd, {
        skills: ['./skills'],
        agents: [
          agentEntry('a', fake.server.url, {
            system_message: persona('a'),
            backend: { cwd: 'ws_a', enable_code_execution: true },
          }),
          agentEntry('b', fake.server.url, { system_message: persona('b') }),
        ],
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Probe the sandbox'], {
        cwd,
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);

      // Discovery: name and description in every agent's first prompt, never the body.
      const first = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'a')!.body!;
      expect(systemText(first)).toContain(
        '- probe: Probes the sandbox a command runs in. Use when asked about the sandbox.',
      );
      expect(systemText(first)).not.toContain('PROBE-BODY-MARKER');
      expect(toolNames(first)).toContain('load_skill');
      const firstOfB = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'b')!.body!;
      expect(systemText(firstOfB)).toContain('- probe: ');
      expect(systemText(firstOfB)).not.toContain('broken');

      // The malformed skill: one warning naming its file; the run went on without it.
      const brokenFile = path.join(cwd, 'skills', 'broken', 'SKILL.md');
      const warnings = result.stderr.split('\n').filter((l) => l.includes('broken'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(brokenFile);
      expect(warnings[0]).toMatch(/description: is missing/);

      const calls = finishedCalls(readEvents(onlyLogDir(cwd)), 'a');
      const load = calls.find((c) => c.toolName === 'load_skill');
      expect(load?.isError).toBe(false);
      expect(String(load?.result)).toContain(BODY_MARKER);
      expect(String(load?.result)).toContain('Folder: /run/skills/probe');
      expect(String(load?.result)).toContain('- scripts/probe.sh');
      const run = calls.find((c) => c.toolName === 'execute_command');
      expect(run?.result).toMatch(/^exit code 0 \(sandbox\)/);
      // No capabilities, the home (the CLI's HOME is cwd) hidden, the skill at its fixed path.
      expect(run?.result).toMatch(/CapEff:\s+0000000000000000/);
      expect(run?.result).toContain('home: hidden');
      expect(run?.result).toContain('script dir: /run/skills/probe/scripts');
    },
  );

  it('saves a skill the final answer proposes (skills.evolve) and accepts it into the skills folder', async () => {
    const cwd = makeWorkdir();
    const proposal = [
      '<proposed-skill>',
      '---',
      'name: csv-report',
      'description: Turns a CSV file into a short Markdown report.',
      '---',
      '',
      '# CSV report',
      '',
      'Read the CSV, count the rows, write report.md.',
      '</proposed-skill>',
    ].join('\n');
    fake.server.setHandler((body): FakeResponse => {
      if (!toolNames(body).includes('new_answer')) return { text: `The report is done.\n\n${proposal}\n` };
      if (votableIds(body).includes('agent1'))
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'ok' } }] };
      return { toolCalls: [{ name: 'new_answer', arguments: { content: 'done' } }] };
    });
    writeConfig(cwd, {
      skills: { paths: ['./skills'], evolve: true },
      agents: [
        agentEntry('a', fake.server.url, { system_message: persona('a') }),
        agentEntry('b', fake.server.url, { system_message: persona('b') }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Report on data.csv'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const prompt = systemText(fake.server.requests[0]!.body!);
    expect(prompt).toContain('<proposed-skill>');
    expect(result.stderr).toContain('massgen skills accept csv-report');
    const proposed = path.join(cwd, '.massgen', 'proposed-skills', 'csv-report', 'SKILL.md');
    expect(fs.readFileSync(proposed, 'utf8')).toContain('name: csv-report');

    const listed = await runCli(['skills', 'list', '--config', 'config.yaml'], { cwd });
    expect(listed.stdout).toContain('Proposed by a run (massgen skills accept NAME): csv-report');
    const accepted = await runCli(['skills', 'accept', 'csv-report', '--config', 'config.yaml'], { cwd });
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'skills', 'csv-report', 'SKILL.md'))).toBe(true);
    expect(fs.existsSync(path.dirname(proposed))).toBe(false);
    const after = await runCli(['skills', 'list', '--config', 'config.yaml'], { cwd });
    expect(after.stdout).toMatch(/^csv-report {2}Turns a CSV file into a short Markdown report\. {2}\(/m);
  });
});

describe('massgen skills (the agents’ skills, not `massgen skill`)', () => {
  it('validates with file:line, adds only a valid folder, and lists name, description and folder', async () => {
    const cwd = makeWorkdir();
    writeSkills(cwd);
    const bad = path.join(cwd, 'incoming', 'Bad_Name');
    fs.mkdirSync(bad, { recursive: true });
    fs.writeFileSync(path.join(bad, 'SKILL.md'), '---\nname: Bad_Name\ndescription: x\n---\n');

    const validate = await runCli(['skills', 'validate', 'skills', 'incoming/Bad_Name'], { cwd });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(
      `${path.join(cwd, 'skills', 'broken', 'SKILL.md')}:2: description: is missing`,
    );
    expect(validate.stderr).toContain(`${path.join(bad, 'SKILL.md')}:2: name: "Bad_Name" must be`);
    expect(validate.stderr).toContain(`${path.join(bad, 'SKILL.md')}:5: the body is empty`);
    expect(validate.stderr).toMatch(/3 problems in 3 skills/);

    const refused = await runCli(['skills', 'add', 'incoming/Bad_Name', '--dir', 'team-skills'], { cwd });
    expect(refused.code).toBe(1);
    expect(fs.existsSync(path.join(cwd, 'team-skills'))).toBe(false);

    const added = await runCli(['skills', 'add', 'skills/probe', '--dir', 'team-skills'], { cwd });
    expect(added.code, added.stderr).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'team-skills', 'probe', 'scripts', 'probe.sh'))).toBe(true);

    const listed = await runCli(['skills', 'list', '--dir', 'team-skills'], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      `probe  Probes the sandbox a command runs in. Use when asked about the sandbox.  (${path.join(cwd, 'team-skills')})`,
    );
    // --validate names the malformed SKILL.md too (a warning: the run would go on without it).
    writeConfig(cwd, { skills: ['./skills'], agents: [agentEntry('a', 'http://127.0.0.1:9/v1')] });
    const checked = await runCli(['--validate', 'config.yaml'], { cwd });
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout + checked.stderr).toContain(path.join(cwd, 'skills', 'broken', 'SKILL.md'));

    const help = await runCli(['skills', '--help'], { cwd });
    expect(help.stdout).toMatch(/Agent Skills massgen's agents use/);
    expect(help.stdout).toContain('Not the same as `massgen skill install` (singular)');
  });
});
