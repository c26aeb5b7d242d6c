/**
 * Agents with tools through the built CLI: real MCP servers from node_modules (server-everything,
 * server-filesystem, and the SDK fixture server), custom TypeScript tools, planning mode — with a
 * scripted model server deciding what the agents call.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import type { RunEvent } from '../../src/types/events.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/mcp/fixture-server.mjs');
const TEXT_TOOLS = path.join(REPO_ROOT, 'examples/tools/text_tools.ts');

// Each test tags its servers (server-everything ignores extra arguments; the fixture has --tag), so
// the process-table checks see only that test's processes, not those of tests running beside it.
const everything = (tag: string) => ({ command: process.execPath, args: [EVERYTHING, 'stdio', tag] });
const fixture = (tag: string) => ({ command: process.execPath, args: [FIXTURE, '--tag', tag] });

/** Command lines of live processes that mention `needle` (the process-table check for orphans). */
function processesWith(needle: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes(needle) && !/\sZ/.test(line.slice(0, 16)) && !line.includes('ps -eo'));
}

/**
 * Scripted agents: in coordination, each agent makes the calls `plan(id)` lists, one per step, then
 * answers with `answer(id, text)` where text is everything the model has seen; everyone votes for
 * agent1; the presenter (agent1's author) makes `present(id)` calls and then states its answer.
 */
function toolHandler(options: {
  plan: (id: string) => { name: string; arguments: Record<string, unknown> }[];
  answer: (id: string, seen: string) => string;
  present?: (id: string) => { name: string; arguments: Record<string, unknown> }[];
  onPresentation?: () => void;
}) {
  const done = new Map<string, number>();
  const presented = new Map<string, number>();
  const answers = new Map<string, string>();
  return (body: Parameters<typeof agentOf>[0], _index: number, view: FakeRequestView): FakeResponse => {
    const id = agentOf(body) ?? 'unknown';
    if (!toolNames(body).includes('new_answer')) {
      options.onPresentation?.();
      const calls = options.present?.(id) ?? [];
      const next = presented.get(id) ?? 0;
      presented.set(id, next + 1);
      const call = calls[next];
      return call ? { toolCalls: [call] } : { text: `Final from ${id}: ${answers.get(id) ?? '(no answer)'}` };
    }
    if (votableIds(body).includes('agent1')) {
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'agent1 did it' } }] };
    }
    const calls = options.plan(id);
    const next = done.get(id) ?? 0;
    done.set(id, next + 1);
    const call = calls[next];
    if (call) return { toolCalls: [call] };
    const content = options.answer(id, view.text);
    answers.set(id, content);
    return { toolCalls: [{ name: 'new_answer', arguments: { content } }] };
  };
}

const eventsOf = (cwd: string) => readEvents(onlyLogDir(cwd));
const sandbox = sandboxSupport(process.env.PATH);
const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
/** The tool calls that ran: not the `vote` a model was seen writing (docs/events.md). */
const toolCalls = (events: RunEvent[]) =>
  ofType(events, 'tool.call.finished').filter((e) => e.toolName !== 'vote');

describe('MCP tools through the CLI', () => {
  const fake = useFakeServer();

  it('an agent calls mcp__everything__echo on the real server and the result reaches its answer; no server survives the run', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(
      toolHandler({
        plan: (id) =>
          id === 'a' ? [{ name: 'mcp__everything__echo', arguments: { message: 'ping-from-a' } }] : [],
        answer: (id, seen) =>
          id === 'a' ? `the server said: ${/Echo: ping-from-a/.exec(seen)?.[0] ?? 'nothing'}` : 'b',
      }),
    );
    const server = { mcp_servers: { everything: everything(cwd) } };
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { system_message: persona('a'), backend: server }),
        agentEntry('b', fake.server.url, { system_message: persona('b'), backend: server }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Say ping'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('MCP server "everything" ready');
    expect(result.stdout).toContain('Final from a: the server said: Echo: ping-from-a');
    const events = eventsOf(cwd);
    const finished = ofType(events, 'tool.call.finished').find((e) => e.toolName === 'mcp__everything__echo');
    expect(finished).toMatchObject({ agentId: 'a', isError: false, result: 'Echo: ping-from-a' });
    expect(
      ofType(events, 'mcp.server.ready')
        .map((e) => e.agentId)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(processesWith(cwd)).toEqual([]);
  });

  it.skipIf(!sandbox.ok)(
    `a stdio server of an agent with a workspace runs in its OS sandbox; sandbox: false opts out${sandbox.ok ? '' : ` — skipped: ${sandbox.reason}`}`,
    async () => {
      const cwd = makeWorkdir();
      const outside = path.join(cwd, 'outside');
      fs.mkdirSync(outside);
      fake.server.setHandler(
        toolHandler({
          plan: (id) => [{ name: `mcp__${id === 'a' ? 'jailed' : 'free'}__probe`, arguments: {} }],
          answer: (id) => `${id} probed`,
        }),
      );
      const probe = (tag: string, extra: Record<string, unknown> = {}) => ({
        command: process.execPath,
        args: [FIXTURE, '--tag', `${cwd}-${tag}`, '--probe', outside],
        ...extra,
      });
      writeConfig(cwd, {
        agents: [
          agentEntry('a', fake.server.url, {
            system_message: persona('a'),
            backend: { cwd: 'ws_a', mcp_servers: { jailed: probe('a') } },
          }),
          agentEntry('b', fake.server.url, {
            system_message: persona('b'),
            backend: { cwd: 'ws_b', mcp_servers: { free: probe('b', { sandbox: false }) } },
          }),
        ],
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Probe'], {
        cwd,
        timeoutMs: 60_000,
      });
      expect(result.code).toBe(0);
      const results = Object.fromEntries(toolCalls(eventsOf(cwd)).map((e) => [e.toolName, e.result]));
      expect(results).toEqual({ mcp__jailed__probe: 'refused: EROFS', mcp__free__probe: 'wrote' });
      expect(processesWith(cwd)).toEqual([]);
    },
  );

  it('allowed_tools and exclude_tools change what each model is offered', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(toolHandler({ plan: () => [], answer: (id) => `answer ${id}` }));
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          system_message: persona('a'),
          backend: { mcp_servers: { everything: everything(cwd) }, allowed_tools: ['mcp__everything__echo'] },
        }),
        agentEntry('b', fake.server.url, {
          system_message: persona('b'),
          backend: {
            mcp_servers: { everything: everything(cwd) },
            exclude_tools: ['mcp__everything__echo', 'mcp__everything__trigger-*'],
          },
        }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], { cwd, timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const offered = (id: string) =>
      toolNames(fake.server.requests.find((r) => r.body && agentOf(r.body) === id)?.body ?? {}).filter((n) =>
        n.startsWith('mcp__'),
      );
    expect(offered('a')).toEqual(['mcp__everything__echo']);
    expect(offered('b')).not.toContain('mcp__everything__echo');
    expect(offered('b')).toContain('mcp__everything__get-sum');
    expect(offered('b').some((n) => n.startsWith('mcp__everything__trigger-'))).toBe(false);
  });

  it('a server command that does not exist, a server that crashes mid-run and a tool that hangs past its timeout all leave the run completing', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(
      toolHandler({
        plan: (id) =>
          id === 'a'
            ? [
                { name: 'mcp__flaky__crash', arguments: {} },
                { name: 'mcp__slow__hang', arguments: {} },
              ]
            : [],
        answer: (id, seen) =>
          `${id} saw: ${seen.includes('did not finish within 1s') ? 'timeout' : 'no timeout'}`,
      }),
    );
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          system_message: persona('a'),
          backend: {
            mcp_servers: {
              missing: { command: 'massgen-no-such-mcp-server' },
              flaky: fixture(cwd),
              slow: fixture(cwd),
            },
            tool_timeout_seconds: 1,
          },
        }),
        agentEntry('b', fake.server.url, { system_message: persona('b') }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], { cwd, timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✖ MCP server "missing": .*massgen-no-such-mcp-server/);
    expect(result.stdout).toContain('Final from a: a saw: timeout');
    const events = eventsOf(cwd);
    const failed = ofType(events, 'mcp.server.failed');
    // Reported once each: the missing command at start, the crash when it happened.
    expect(failed.filter((e) => e.server === 'missing')).toHaveLength(1);
    expect(failed.filter((e) => e.server === 'flaky')).toHaveLength(1);
    const calls = ofType(events, 'tool.call.finished');
    expect(calls.find((e) => e.toolName === 'mcp__flaky__crash')?.isError).toBe(true);
    expect(calls.find((e) => e.toolName === 'mcp__slow__hang')).toMatchObject({ isError: true });
    expect(processesWith(cwd)).toEqual([]);
  });

  it('Ctrl-C during a run stops every MCP server it started', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(() => ({ hang: true }));
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          system_message: persona('a'),
          backend: { mcp_servers: { one: fixture(cwd) } },
        }),
        agentEntry('b', fake.server.url, {
          system_message: persona('b'),
          backend: { mcp_servers: { two: fixture(cwd) } },
        }),
      ],
    });
    const running = startCli(['--config', 'config.yaml', '--no-display', 'q'], { cwd, timeoutMs: 60_000 });
    await running.until(
      () => (running.stdout.match(/MCP server "(one|two)" ready/g) ?? []).length === 2,
      'both MCP servers ready',
    );
    await running.until(() => fake.server.requests.length >= 2, 'model calls');
    expect(processesWith(cwd).length).toBeGreaterThanOrEqual(2);
    running.child.kill('SIGINT');
    const result = await running.result;
    expect(result.code).toBe(130);
    expect(processesWith(cwd)).toEqual([]);
  });

  it('speaks streamable HTTP to a server on 127.0.0.1', async () => {
    const cwd = makeWorkdir();
    const server = spawn(process.execPath, [FIXTURE, '--http', '0', '--token', 'sesame'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      server.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      await waitUntil(() => /LISTENING \d+/.test(out), 'the HTTP fixture', { seen: () => out });
      const port = /LISTENING (\d+)/.exec(out)?.[1];
      fake.server.setHandler(
        toolHandler({
          plan: (id) => (id === 'a' ? [{ name: 'mcp__remote__echo', arguments: { text: 'over http' } }] : []),
          answer: (id, seen) => `${id}: ${seen.includes('over http') ? 'heard it' : 'silence'}`,
        }),
      );
      writeConfig(cwd, {
        agents: [
          agentEntry('a', fake.server.url, {
            system_message: persona('a'),
            backend: {
              mcp_servers: {
                remote: {
                  type: 'streamable-http',
                  url: `http://127.0.0.1:${port}/mcp`,
                  headers: { 'x-fixture-token': '${TOKEN}' },
                },
              },
            },
          }),
          agentEntry('b', fake.server.url, { system_message: persona('b') }),
        ],
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], {
        cwd,
        env: { TOKEN: 'sesame' },
        timeoutMs: 60_000,
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Final from a: a: heard it');
    } finally {
      server.kill('SIGKILL');
    }
  });
});

describe('planning mode through the CLI', () => {
  const fake = useFakeServer();

  it('a write during coordination is only planned; the final presenter really writes the file', async () => {
    const cwd = makeWorkdir();
    const notes = path.join(cwd, 'notes');
    fs.mkdirSync(notes);
    const target = path.join(notes, 'plan.txt');
    const write = {
      name: 'mcp__fs__write_file',
      arguments: { path: target, content: 'the plan, carried out' },
    };
    let existedAtPresentation: boolean | null = null;
    fake.server.setHandler(
      toolHandler({
        plan: (id) =>
          id === 'a' ? [{ name: 'mcp__fs__list_allowed_directories', arguments: {} }, write] : [],
        answer: (id) => `${id}: write plan.txt`,
        present: (id) => (id === 'a' ? [write] : []),
        onPresentation: () => (existedAtPresentation ??= fs.existsSync(target)),
      }),
    );
    const fsServer = { mcp_servers: { fs: { command: process.execPath, args: [FILESYSTEM, notes] } } };
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, { system_message: persona('a'), backend: fsServer }),
        agentEntry('b', fake.server.url, { system_message: persona('b'), backend: fsServer }),
      ],
      orchestrator: { coordination: { enable_planning_mode: true } },
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Write the plan'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    expect(existedAtPresentation).toBe(false);
    expect(fs.readFileSync(target, 'utf8')).toBe('the plan, carried out');
    const events = eventsOf(cwd);
    const writes = ofType(events, 'tool.call.finished').filter((e) => e.toolName === 'mcp__fs__write_file');
    expect(writes.map((e) => [e.phase, e.deferred ?? false])).toEqual([
      ['coordination', true],
      ['presentation', false],
    ]);
    const listed = ofType(events, 'tool.call.finished').find(
      (e) => e.toolName === 'mcp__fs__list_allowed_directories',
    );
    expect(listed?.deferred).toBeUndefined();
    expect(result.stdout).toContain('Planning mode: run now:');
  });
});

describe('custom tools through the CLI', () => {
  const fake = useFakeServer();

  it('offers TypeScript functions as tools; a schema violation comes back as a tool error and the retry works', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(
      toolHandler({
        plan: (id) =>
          id === 'a'
            ? [
                { name: 'word_count', arguments: { txt: 'oops' } },
                { name: 'word_count', arguments: { text: 'three little words' } },
                { name: 'reading_time', arguments: { text: 'one two three four' } },
              ]
            : [],
        answer: (id, seen) => `${id} saw: ${seen.replace(/\s+/g, ' ')}`,
      }),
    );
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          system_message: persona('a'),
          backend: {
            custom_tools: [
              {
                name: 'word_count',
                description: 'Count words.',
                path: TEXT_TOOLS,
                function: 'wordCount',
                parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
              },
              { name: 'reading_time', path: TEXT_TOOLS, function: 'readingTime' },
            ],
          },
        }),
        agentEntry('b', fake.server.url, { system_message: persona('b') }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Count'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const calls = toolCalls(eventsOf(cwd));
    expect(calls.map((c) => [c.toolName, c.isError])).toEqual([
      ['word_count', true],
      ['word_count', false],
      ['reading_time', false],
    ]);
    expect(calls[0]?.result).toMatch(/Invalid arguments for word_count: .*required property 'text'/);
    expect(JSON.parse(calls[1]?.result ?? '{}')).toEqual({ words: 3, characters: 18 });
    expect(calls[2]?.result).toBe('1 min (4 words at 230 wpm)');
  });

  it('a missing custom tool export is a config error before any agent starts', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [
        agentEntry('a', fake.server.url, {
          backend: {
            custom_tools: [
              { name: 'wc', path: TEXT_TOOLS, function: 'wordCont', parameters: { type: 'object' } },
            ],
          },
        }),
      ],
    });
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'q'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/wordCont/);
    expect(result.stderr).toMatch(/wordCount/);
    expect(fake.server.requests).toEqual([]);
  });
});

describe('npm run demo:tools', () => {
  it('runs to the end and the final presenter writes the planned report', () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'demo-tools.mjs')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: makeWorkdir() },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('⏸ mcp__files__write_file recorded for the plan');
    expect(run.stdout).toContain('↳ mcp__files__write_file: Successfully wrote');
    expect(run.stdout).toContain('↳ word_count: { "words": 12');
    expect(run.stdout).toMatch(/report\.md:\n# Report\n\n19 \+ 23 = 42/);
  });
});
