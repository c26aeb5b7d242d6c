/**
 * Workspaces through the built CLI: three scripted agents write files in their own workspaces, see
 * each other's answer snapshots under the anonymous ids of the answers, and the final presenter writes
 * the deliverable into a `write` context path — which nobody could write while coordinating.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { createSessionRunner } from '../../src/app/sessions.js';
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

type Call = { name: string; arguments: Record<string, unknown> };

const workspaceOf = (system: string) => /WORKSPACE: (\S+) is your workspace/.exec(system)?.[1] ?? '(none)';
const peersOf = (system: string) =>
  /Files of the other agents' answers: (\S+)\/<agent id>\//.exec(system)?.[1] ?? '(none)';

/**
 * a (agent1) writes notes.md and tries the context path too early; b (agent2) waits for a's answer,
 * reads a's file through the rewritten path in it, copies it, and answers; c (agent3) votes for a.
 * The presenter (a) writes the deliverable, and tries a protected file.
 */
function teamHandler(deliver: string) {
  const steps = new Map<string, number>();
  const next = (id: string) => {
    const n = steps.get(id) ?? 0;
    steps.set(id, n + 1);
    return n;
  };
  return (body: Parameters<typeof agentOf>[0], _i: number, view: FakeRequestView): FakeResponse => {
    const id = agentOf(body) ?? '?';
    const system = systemText(body);
    const ws = workspaceOf(system);
    if (!toolNames(body).includes('new_answer')) {
      const n = next(`${id}-present`);
      const calls: Call[] = [
        {
          name: 'write_file',
          arguments: { path: path.join(deliver, 'report.md'), content: 'delivered by a' },
        },
        { name: 'write_file', arguments: { path: path.join(deliver, 'keep.txt'), content: 'overwritten!' } },
      ];
      const call = calls[n];
      return call ? { toolCalls: [call] } : { text: `final by ${id}` };
    }
    const votable = votableIds(body);
    if (id === 'c' || (id !== 'a' && votable.includes('agent1') && steps.get(`${id}-done`))) {
      return votable.includes('agent1')
        ? { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'good files' } }] }
        : { toolCalls: [{ name: 'list_directory', arguments: {} }] };
    }
    if (id === 'a') {
      if (votable.includes('agent1')) {
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'mine' } }] };
      }
      const calls: Call[] = [
        { name: 'write_file', arguments: { path: 'notes.md', content: 'notes by a' } },
        { name: 'write_file', arguments: { path: path.join(deliver, 'early.md'), content: 'too early' } },
      ];
      const call = calls[next(id)];
      if (call) return { toolCalls: [call] };
      return {
        toolCalls: [{ name: 'new_answer', arguments: { content: `My notes are in ${ws}/notes.md` } }],
      };
    }
    // b: waits (listing its workspace) until a's answer is visible, then works from a's files.
    if (!votable.includes('agent1')) return { toolCalls: [{ name: 'list_directory', arguments: {} }] };
    const shownPath = /My notes are in (\S+)/.exec(view.text)?.[1] ?? '(not shown)';
    const calls: Call[] = [
      { name: 'read_file', arguments: { path: shownPath } },
      { name: 'write_file', arguments: { path: shownPath, content: 'b scribbles on a' } },
      { name: 'copy_file', arguments: { source: shownPath, destination: 'from-a.md' } },
    ];
    const call = calls[next(id)];
    if (call) return { toolCalls: [call] };
    steps.set(`${id}-done`, 1);
    return {
      toolCalls: [
        { name: 'new_answer', arguments: { content: `b read ${shownPath} (peers at ${peersOf(system)})` } },
      ],
    };
  };
}

const finishedCalls = (events: RunEvent[], agentId: string) =>
  events.filter(
    (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> =>
      e.type === 'tool.call.finished' && e.agentId === agentId,
  );

describe('workspaces through the CLI', () => {
  it('three agents share answer snapshots under anonymous ids; only the presenter writes the context path', async () => {
    const cwd = makeWorkdir();
    const deliver = path.join(cwd, 'deliver');
    fs.mkdirSync(deliver);
    fs.writeFileSync(path.join(deliver, 'keep.txt'), 'original');
    fake.server.setHandler(teamHandler(deliver));
    writeConfig(cwd, {
      agents: ['a', 'b', 'c'].map((id, i) =>
        agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws${i + 1}` } }),
      ),
      orchestrator: {
        context_paths: [{ path: 'deliver', permission: 'write', protected_paths: ['keep.txt'] }],
      },
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Write notes and deliver'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = readEvents(onlyLogDir(cwd));
    const real = fs.realpathSync(cwd);

    // a's own workspace holds its file; a could not write the context path while coordinating.
    expect(fs.readFileSync(path.join(cwd, '.massgen/workspaces/ws1/notes.md'), 'utf8')).toBe('notes by a');
    const early = finishedCalls(events, 'a').find((e) => String(e.result).includes('early.md'));
    expect(early?.isError).toBe(true);
    expect(early?.result).toMatch(/read-only while the agents coordinate/);
    expect(fs.existsSync(path.join(deliver, 'early.md'))).toBe(false);

    // b saw a's answer with the path rewritten to its own view of a's snapshot, named by a's anonymous id.
    const seenByB = path.join(real, '.massgen/temp_workspaces/agent2/agent1/notes.md');
    const bCalls = finishedCalls(events, 'b');
    expect(bCalls.find((e) => e.toolName === 'read_file')?.result).toContain('notes by a');
    const scribble = bCalls.find((e) => e.toolName === 'write_file');
    expect(scribble?.isError).toBe(true);
    expect(scribble?.result).toMatch(/snapshot/);
    expect(bCalls.find((e) => e.toolName === 'copy_file')?.isError).toBe(false);
    expect(fs.readFileSync(path.join(cwd, '.massgen/workspaces/ws2/from-a.md'), 'utf8')).toBe('notes by a');
    const bAnswer = events.find((e) => e.type === 'answer.submitted' && e.agentId === 'b');
    expect(bAnswer && 'content' in bAnswer ? bAnswer.content : '').toContain(`b read ${seenByB}`);
    // a's own file was never touched by b.
    expect(fs.readFileSync(path.join(cwd, '.massgen/workspaces/ws1/notes.md'), 'utf8')).toBe('notes by a');

    // The presenter wrote the deliverable, but not the protected file.
    expect(fs.readFileSync(path.join(deliver, 'report.md'), 'utf8')).toBe('delivered by a');
    expect(fs.readFileSync(path.join(deliver, 'keep.txt'), 'utf8')).toBe('original');
    const protectedWrite = finishedCalls(events, 'a').find((e) => String(e.result).includes('protected'));
    expect(protectedWrite).toMatchObject({ phase: 'presentation', isError: true });

    // The winner's workspace is the deliverable in the log; the shared copies are gone.
    expect(fs.readFileSync(path.join(onlyLogDir(cwd), 'final/a/workspace/notes.md'), 'utf8')).toBe(
      'notes by a',
    );
    expect(fs.readdirSync(path.join(cwd, '.massgen/temp_workspaces'))).toEqual([]);
  });

  it.each([
    [{ context_paths: [{ path: 'missing' }] }, {}, /context path not found: .*missing/],
    [{}, { cwd: '../outside' }, /"\.\.\/outside" is outside the project/],
    [{}, { cwd: '/abs/ws' }, /"\/abs\/ws" is outside the project/],
    [
      {},
      { cwd: 'ws1', execution_mode: 'docker', enable_code_execution: true },
      /no Docker engine is available/,
    ],
    [{}, { execution_mode: 'docker' }, /docker needs a workspace/],
  ])('bad input is a config error before any agent starts: %j %j', async (orchestrator, backend, message) => {
    const cwd = makeWorkdir();
    fs.writeFileSync(path.join(cwd, 'file.txt'), 'x');
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { backend }),
        agentEntry('b', fake.server.url, { backend: { cwd: 'ws2' } }),
      ],
      orchestrator,
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], {
      cwd,
      env: { PATH: '/nonexistent' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(fake.server.requests).toEqual([]);
  });

  it('overlapping workspaces are a config error naming both agents', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { backend: { cwd: 'shared' } }),
        agentEntry('b', fake.server.url, { backend: { cwd: 'shared/inner' } }),
      ],
    });
    const result = await runCli(['--validate', 'config.yaml'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(
      /workspace "shared\/inner" of b overlaps the workspace "shared" of a/,
    );
  });
});

const sandbox = sandboxSupport(process.env.PATH);

describe('code execution through the CLI', () => {
  it.skipIf(!sandbox.ok)(
    `runs commands in the OS sandbox of the workspace with a scrubbed environment${sandbox.ok ? '' : ` — skipped: ${sandbox.reason}`}`,
    async () => {
      const cwd = makeWorkdir();
      // Generous limits for the commands that finish; the one that never does is the timeout's case.
      const commands: [string, number][] = [
        ['echo built > out.txt && cat out.txt', 60],
        ['env', 60],
        ['cd /; touch escaped.txt', 60],
        ['sleep 1000', 1],
      ];
      const counter = new Map<string, number>();
      fake.server.setHandler((body) => {
        const id = agentOf(body) ?? '?';
        if (!toolNames(body).includes('new_answer')) return { text: `final by ${id}` };
        if (votableIds(body).includes('agent1')) {
          return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'ran it' } }] };
        }
        if (id === 'b') return { toolCalls: [{ name: 'list_directory', arguments: {} }] };
        const n = counter.get(id) ?? 0;
        counter.set(id, n + 1);
        const next = commands[n];
        return next
          ? {
              toolCalls: [
                { name: 'execute_command', arguments: { command: next[0], timeout_seconds: next[1] } },
              ],
            }
          : { toolCalls: [{ name: 'new_answer', arguments: { content: 'built out.txt' } }] };
      });
      writeConfig(cwd, {
        agents: [
          agentEntry('a', fake.server.url, {
            system_message: persona('a'),
            backend: { cwd: 'ws_a', enable_code_execution: true },
          }),
          agentEntry('b', fake.server.url, { system_message: persona('b'), backend: { cwd: 'ws_b' } }),
        ],
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Build'], {
        cwd,
        env: { MASSGEN_DEMO_API_KEY: 'sk-should-never-leak' },
        timeoutMs: 90_000,
      });
      expect(result.code).toBe(0);
      const calls = finishedCalls(readEvents(onlyLogDir(cwd)), 'a').filter(
        (e) => e.toolName === 'execute_command',
      );
      expect(calls.map((c) => c.isError)).toEqual([false, false, false, true]);
      expect(calls[0]?.result).toMatch(/^exit code 0 \(sandbox\)/);
      expect(calls[0]?.result).toContain('built');
      expect(fs.readFileSync(path.join(cwd, '.massgen/workspaces/ws_a/out.txt'), 'utf8')).toBe('built\n');
      expect(calls[1]?.result).not.toContain('sk-should-never-leak');
      expect(calls[1]?.result).toContain(
        `HOME=${fs.realpathSync(path.join(cwd, '.massgen/workspaces/ws_a'))}`,
      );
      expect(calls[2]?.result).toMatch(/^exit code 1 \(sandbox\)\n[\s\S]*Read-only file system/);
      expect(fs.existsSync('/escaped.txt')).toBe(false);
      expect(calls[3]?.result).toMatch(/killed after 1s timeout/);
      // b has a workspace but no code execution: it was never offered the tool.
      const bRequest = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'b');
      expect(toolNames(bRequest?.body ?? {})).not.toContain('execute_command');
      expect(toolNames(bRequest?.body ?? {})).toContain('read_file');
    },
  );
});

describe('workspaces across the turns of a session', () => {
  it("the previous winner's workspace is stored with the turn and read-only for the next turn's agents", async () => {
    const cwd = makeWorkdir();
    const turn = { n: 1 };
    fake.server.setHandler((body, _i, view) => {
      const id = agentOf(body) ?? '?';
      const previous = /The result of the previous turn \(read-only\): (\S+)/.exec(systemText(body))?.[1];
      if (!toolNames(body).includes('new_answer')) return { text: `final of turn ${turn.n}` };
      if (votableIds(body).includes('agent1')) {
        return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'ok' } }] };
      }
      if (id === 'b') return { toolCalls: [{ name: 'list_directory', arguments: {} }] };
      if (turn.n === 1 && !view.text.includes('Created')) {
        return {
          toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'turn one plan' } }],
        };
      }
      if (turn.n === 2 && previous && !view.text.includes('turn one plan')) {
        return { toolCalls: [{ name: 'read_file', arguments: { path: `${previous}/plan.md` } }] };
      }
      if (turn.n === 2 && previous && !view.text.includes('may not') && !view.text.includes('read-only')) {
        return {
          toolCalls: [{ name: 'write_file', arguments: { path: `${previous}/plan.md`, content: 'changed' } }],
        };
      }
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `turn ${turn.n} done` } }] };
    });
    const config = {
      agents: ['a', 'b'].map((id) =>
        agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws_${id}` } }),
      ),
    };
    const runner = createSessionRunner({ config, cwd, env: {} });
    const first = await runner.runTurn('Plan it');
    expect(first.result.status).toBe('completed');
    const storedWorkspace = path.join(first.turnDir ?? '', 'workspace');
    expect(fs.readFileSync(path.join(storedWorkspace, 'plan.md'), 'utf8')).toBe('turn one plan');
    turn.n = 2;
    const events: RunEvent[] = [];
    const second = await runner.runTurn('Carry on', { onEvent: (e) => events.push(e) });
    expect(second.result.status).toBe('completed');
    const aCalls = finishedCalls(events, 'a');
    expect(aCalls.find((c) => c.toolName === 'read_file')?.result).toContain('turn one plan');
    expect(aCalls.find((c) => c.toolName === 'write_file')?.isError).toBe(true);
    expect(fs.readFileSync(path.join(storedWorkspace, 'plan.md'), 'utf8')).toBe('turn one plan');
  });
});
