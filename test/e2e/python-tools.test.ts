/**
 * Python custom tools written for MassGen (list-valued name/function, `ExecutionResult`) run unchanged:
 * a real agent backend against the fake OpenAI-compatible server calls them through the run's Python
 * host, and the results reach the model. Skips with a reason where there is no python3.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/index.js';
import { agentEntry, makeWorkdir, runCli, useFakeServer, writeConfig } from './cli-harness.js';

const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const hasPython = python.status === 0;
const noPython = hasPython
  ? ''
  : ' (skipped: python3 is not on PATH, so Python custom tools cannot run here)';

const fake = useFakeServer();

const TOOLS_PY = `
import asyncio, os
from massgen.tool._result import ExecutionResult, TextContent, ImageContent


async def two_num_tool(x: int, y: int) -> ExecutionResult:
    """Add two numbers together.

    Args:
        x: First number
        y: Second number
    """
    print("noise on stdout must not break the protocol")
    return ExecutionResult(output_blocks=[TextContent(data=f"The sum of {x} and {y} is {x + y}"), ImageContent(data="aGVsbG8=")])


def shout(text: str, times: int = 1) -> str:
    """Upper-cases text."""
    return " ".join([text.upper()] * times)


def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


async def slow() -> str:
    """Never returns (until cancelled)."""
    await asyncio.Event().wait()
    return "late"


def die() -> str:
    """Kills the host."""
    os._exit(3)
`;

/** The text of every tool result the model has been sent so far. */
const toolResults = (body: FakeChatRequestBody): string[] =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

/** Calls `calls` one after another (one per request), then answers with everything it read. */
function callInTurn(calls: { name: string; arguments: Record<string, unknown> }[]) {
  return (body: FakeChatRequestBody): FakeResponse => {
    const seen = toolResults(body);
    const next = calls[seen.length];
    if (next) return { toolCalls: [next] };
    const names = (body.tools ?? []).map((t) => t.function.name);
    const answer = `Read: ${seen.join(' || ')}`;
    return names.includes('new_answer')
      ? { toolCalls: [{ name: 'new_answer', arguments: { content: answer } }] }
      : { text: answer };
  };
}

function setUp(extra: Record<string, unknown> = {}) {
  const cwd = makeWorkdir();
  fs.writeFileSync(path.join(cwd, 'tools.py'), TOOLS_PY);
  const agent = agentEntry('solo', fake.server.url, {
    backend: {
      custom_tools: [
        {
          name: ['two_num_tool', 'shout'],
          function: ['two_num_tool', 'shout'],
          category: 'math',
          path: 'tools.py',
        },
        { name: 'boom', function: 'boom', path: 'tools.py' },
        { name: 'slow', function: 'slow', path: 'tools.py' },
        { name: 'die', function: 'die', path: 'tools.py' },
      ],
      // Generous: a loaded machine must not turn a slow start of the host into a tool timeout.
      tool_timeout_seconds: 120,
      ...extra,
    },
  });
  const config = { agents: [agent] };
  const run = (question: string) =>
    runMassGen({ config, question, cwd, env: { PATH: process.env.PATH ?? '' }, logging: false });
  return { cwd, config, run };
}

/** Host processes whose working folder is `cwd` (each test has its own). */
const hostsIn = (cwd: string): number =>
  fs.readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return (
        fs.readlinkSync(`/proc/${pid}/cwd`) === cwd &&
        fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('massgen_tool_host')
      );
    } catch {
      return false;
    }
  }).length;

// Each test starts Python (and one the built CLI): generous limits, so a loaded 2-core machine stays green.
describe.skipIf(!hasPython)(`Python custom tools${noPython}`, () => {
  it('a MassGen tool runs unchanged: schema from its signature, ExecutionResult text to the model', async () => {
    fake.server.setHandler(
      callInTurn([
        { name: 'two_num_tool', arguments: { x: 2, y: 3 } },
        { name: 'shout', arguments: { text: 'hi', times: 2 } },
      ]),
    );
    const { cwd, run } = setUp();

    const result = await run('Add 2 and 3.');

    expect(result.error).toBeUndefined();
    expect(result.finalAnswer).toBe('Read: The sum of 2 and 3 is 5\n[image: 5 bytes] || HI HI');
    const offered = fake.server.requests[0]?.body?.tools ?? [];
    const add = offered.find((t) => t.function.name === 'two_num_tool')?.function;
    expect(add?.description).toBe('Add two numbers together.');
    expect(add?.parameters).toMatchObject({
      type: 'object',
      properties: {
        x: { type: 'integer', description: 'First number' },
        y: { type: 'integer', description: 'Second number' },
      },
      required: ['x', 'y'],
    });
    expect(offered.find((t) => t.function.name === 'shout')?.function.parameters).toMatchObject({
      properties: { text: { type: 'string' }, times: { type: 'integer', default: 1 } },
      required: ['text'],
    });
    expect(hostsIn(cwd)).toBe(0);
  });

  it('preset_args are hidden from the model and beat its value; default_params fill in what it leaves out', async () => {
    // The model tries to set the preset y itself (1000); the config's 40 is what the tool gets.
    fake.server.setHandler(
      callInTurn([
        { name: 'two_num_tool', arguments: { x: 2, y: 1000 } },
        { name: 'shout', arguments: { text: 'hi' } },
      ]),
    );
    const { run } = setUp({
      custom_tools: [
        { name: ['two_num_tool'], function: ['two_num_tool'], path: 'tools.py', preset_args: [{ y: 40 }] },
        { name: 'shout', function: 'shout', path: 'tools.py', default_params: { times: 3 } },
      ],
    });

    const result = await run('Add.');

    expect(result.error).toBeUndefined();
    expect(result.finalAnswer).toBe('Read: The sum of 2 and 40 is 42\n[image: 5 bytes] || HI HI HI');
    const offered = fake.server.requests[0]?.body?.tools ?? [];
    const add = offered.find((t) => t.function.name === 'two_num_tool')?.function.parameters;
    expect(add).toMatchObject({ properties: { x: { type: 'integer' } }, required: ['x'] });
    expect(Object.keys((add as { properties: object }).properties)).toEqual(['x']);
    expect(offered.find((t) => t.function.name === 'shout')?.function.parameters).toMatchObject({
      properties: { times: { type: 'integer', default: 3 } },
      required: ['text'],
    });
  });

  it('a tool that never returns is stopped at tool_timeout_seconds and comes back as a tool error', async () => {
    // `slow` blocks until cancelled, so the outcome is a timeout however loaded the machine is.
    fake.server.setHandler(callInTurn([{ name: 'slow', arguments: {} }]));
    const { cwd, run } = setUp({ tool_timeout_seconds: 1 });

    const result = await run('Be slow.');

    expect(result.error).toBeUndefined();
    expect(result.finalAnswer).toBe(
      'Read: Tool slow did not finish within 1s and was stopped (tool_timeout_seconds). Try a smaller request or another approach.',
    );
    expect(hostsIn(cwd)).toBe(0);
  });

  it('an exception comes back as a tool error; a dead host is restarted once, then its tools are off', async () => {
    fake.server.setHandler(
      callInTurn([
        { name: 'boom', arguments: {} },
        { name: 'die', arguments: {} },
        { name: 'shout', arguments: { text: 'back' } },
        { name: 'die', arguments: {} },
        { name: 'shout', arguments: { text: 'gone' } },
      ]),
    );
    const { cwd, run } = setUp();

    const result = await run('Try everything.');

    const read = (result.finalAnswer ?? '').replace(/^Read: /, '').split(' || ');
    expect(read[0]).toMatch(/RuntimeError: kaboom/);
    expect(read[1]).toMatch(/the Python tool host \(python3\) stopped \(exit code 3\)/);
    expect(read[2]).toBe('BACK');
    expect(read[3]).toMatch(/stopped \(exit code 3\)/);
    expect(read[4]).toMatch(/its tools are off for the rest of this run/);
    expect(hostsIn(cwd)).toBe(0);
  });

  it('a module that does not load is a config error naming the entry, before any model call', async () => {
    const { cwd, run } = setUp();
    fs.writeFileSync(path.join(cwd, 'tools.py'), 'import not_a_module_anywhere\n');
    await expect(run('x')).rejects.toThrow(
      /agents\[0\]\.backend\.custom_tools\[0\]\.function: two_num_tool in .*tools\.py could not be loaded: ModuleNotFoundError: No module named 'not_a_module_anywhere'/,
    );
    expect(fake.server.requests).toHaveLength(0);
    expect(hostsIn(cwd)).toBe(0);
  });

  it('through the built CLI: the run waits for Python, prints the MassGen notes, and leaves no host behind', async () => {
    fake.server.setHandler(callInTurn([{ name: 'two_num_tool', arguments: { x: 20, y: 22 } }]));
    const { cwd, config } = setUp();
    writeConfig(cwd, { ...config, orchestrator: { snapshot_storage: 'snapshots' } }, 'team.yaml');

    const result = await runCli(['--config', 'team.yaml', '--no-display', 'Add them.'], {
      cwd,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 90_000,
    });

    expect(result.stderr).toBe(
      'massgen: warning: orchestrator.snapshot_storage (MassGen): answer snapshots are kept automatically in .massgen/snapshots\n',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('↳ two_num_tool: The sum of 20 and 22 is 42');
    expect(result.stdout).toContain('Read: The sum of 20 and 22 is 42');
    expect(hostsIn(cwd)).toBe(0);
  });
});
