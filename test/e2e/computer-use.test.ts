/**
 * Computer use through the built CLI (`tools: { computer }`, docs/computer-use.md): a scripted agent
 * opens a small X application on its own virtual desktop, clicks its button, and the screenshot it
 * gets back shows the change; Xvfb and every program on the desktop are gone after the run, also
 * after Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import { readPng } from '../../src/testing/png.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { findExecutable } from '../../src/util/find-executable.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  removeTempDirs,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';

const missing = ['Xvfb', 'xdotool', 'xmessage'].filter((name) => !findExecutable(name, process.env.PATH));
const sandbox = sandboxSupport(process.env.PATH);
const skipReason = [
  ...(missing.length > 0 ? [`${missing.join(', ')} not installed`] : []),
  ...(sandbox.ok ? [] : [`no sandbox: ${sandbox.reason}`]),
].join('; ');
const skip = skipReason !== '';
const skipped = skip ? ` (skipped: ${skipReason})` : '';

afterAll(removeTempDirs);

/**
 * The test's X application, started with computer_launch: a white window titled "before-TAG" with a
 * button "Go"; clicking it replaces the window with a red one titled "after-TAG". With no window
 * manager the geometry is exact: "Go" sits at x 5..27, y 58..75. TAG marks its processes.
 */
const clickApp = (tag: string) =>
  `xmessage -geometry 160x80+0+0 -title before-${tag} -bg white -fg black -buttons Go:0 hello &&` +
  ` exec xmessage -geometry 160x80+0+0 -title after-${tag} -bg red -fg black -buttons Done:0 clicked`;

/** Command lines of live processes that mention `needle`. */
function processesWith(needle: string): string[] {
  const table = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes(needle) && !/\sZ/.test(line.slice(0, 16)) && !line.includes('ps -eo'));
}

type Call = { name: string; arguments: Record<string, unknown> };

/**
 * Agent `a` makes the `plan` calls one per step, then answers (or whatever `onDone` says); agent `b`
 * answers at once; both vote for `a`, which presents.
 */
function scripted(plan: Call[], onDone: () => FakeResponse = () => ({ text: 'done' })) {
  let step = 0;
  return (body: Parameters<typeof agentOf>[0]): FakeResponse => {
    if (!toolNames(body).includes('new_answer')) return { text: 'Final: the button was clicked.' };
    if (votableIds(body).includes('agent1'))
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'it works' } }] };
    const id = agentOf(body);
    if (id === 'b' && votableIds(body).includes('agent2'))
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent2', reason: 'mine, for now' } }] };
    const call = id === 'a' ? plan[step++] : undefined;
    if (call) return { toolCalls: [call] };
    const next = id === 'a' ? onDone() : { text: 'b' };
    return 'text' in next
      ? { toolCalls: [{ name: 'new_answer', arguments: { content: `${id} is done` } }] }
      : next;
  };
}

const agents = (url: string) => [
  agentEntry('a', url, { system_message: persona('a'), backend: { cwd: 'ws1' } }),
  agentEntry('b', url, { system_message: persona('b'), backend: { cwd: 'ws2' } }),
];

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('computer use through the CLI', () => {
  const fake = useFakeServer();

  it.skipIf(skip)(
    `an agent opens an X app on its desktop, clicks its button, and its screenshot shows the change; nothing is left running${skipped}`,
    async () => {
      const cwd = makeWorkdir();
      const tag = path.basename(cwd);
      fake.server.setHandler(
        scripted([
          { name: 'computer_launch', arguments: { command: clickApp(tag) } },
          { name: 'computer_wait', arguments: { window: `^before-${tag}$` } },
          { name: 'computer_screenshot', arguments: {} },
          { name: 'computer_click', arguments: { x: 16, y: 66 } },
          { name: 'computer_wait', arguments: { window: `^after-${tag}$` } },
          { name: 'computer_screenshot', arguments: {} },
        ]),
      );
      writeConfig(cwd, {
        agents: agents(fake.server.url),
        tools: { computer: { display: 'xvfb', width: 320, height: 200 } },
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Click the button'], {
        cwd,
        env: { TMPDIR: cwd },
        timeoutMs: 90_000,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const events = readEvents(onlyLogDir(cwd));
      const calls = ofType(events, 'tool.call.finished').filter((e) => e.toolName.startsWith('computer_'));
      expect(calls.map((c) => [c.toolName, c.isError])).toEqual([
        ['computer_launch', false],
        ['computer_wait', false],
        ['computer_screenshot', false],
        ['computer_click', false],
        ['computer_wait', false],
        ['computer_screenshot', false],
      ]);
      expect(calls[0]!.result).toMatch(/in the sandbox/);
      const shots = calls
        .filter((c) => c.toolName === 'computer_screenshot')
        .map((c) => (JSON.parse(c.result) as { screenshot: string }).screenshot);
      expect(shots).toEqual(['.computer/screenshots/001.png', '.computer/screenshots/002.png']);
      const png = (file: string) => readPng(fs.readFileSync(path.join(cwd, '.massgen/workspaces/ws1', file)));
      const [before, after] = shots.map(png);
      expect([before!.width, before!.height]).toEqual([320, 200]);
      expect(before!.pixel(140, 30)).toEqual([255, 255, 255]);
      expect(after!.pixel(140, 30)).toEqual([255, 0, 0]);
      // Outside the window the desktop is the bare (black) root window in both.
      expect(after!.pixel(300, 180)).toEqual([0, 0, 0]);
      expect(processesWith(tag)).toEqual([]);
    },
  );

  it.skipIf(skip)(`Ctrl-C stops Xvfb and every program on the desktop${skipped}`, async () => {
    const cwd = makeWorkdir();
    const tag = path.basename(cwd);
    fake.server.setHandler(
      scripted(
        [
          { name: 'computer_launch', arguments: { command: clickApp(tag) } },
          { name: 'computer_wait', arguments: { window: `^before-${tag}$` } },
        ],
        () => ({ hang: true }),
      ),
    );
    writeConfig(cwd, {
      agents: agents(fake.server.url),
      tools: { computer: { display: 'xvfb', width: 320, height: 200 } },
    });
    const running = startCli(['--config', 'config.yaml', '--no-display', 'q'], {
      cwd,
      env: { TMPDIR: cwd },
      timeoutMs: 90_000,
    });
    await running.until(() => fake.server.requests.length >= 4, 'the launch and the wait');
    expect(processesWith(`-auth ${cwd}`).length).toBe(2);
    expect(processesWith(`before-${tag}`).length).toBeGreaterThanOrEqual(1);
    running.child.kill('SIGINT');
    const result = await running.result;
    expect(result.code).toBe(130);
    expect(processesWith(tag)).toEqual([]);
  });
});
