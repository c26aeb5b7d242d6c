import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentToolRegistry } from '../tools/agent-tool-registry.js';
import type { ToolEventInput } from '../types/tool.js';
import { readContextFiles } from './context-files.js';
import { SubagentRefusal } from './subagent-errors.js';
import {
  SubagentManager,
  type ChildLaunch,
  type ChildOutcome,
  type SubagentLimits,
} from './subagent-manager.js';
import { subagentToolProvider } from './subagent-tools.js';
import { loadSubagentTypes } from './subagent-types.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-subagents-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const LIMITS: SubagentLimits = {
  defaultTimeout: 300,
  minTimeout: 60,
  maxTimeout: 900,
  maxConcurrent: 3,
  maxDepth: 1,
};

/** A launcher whose child runs end when the test says (each launch recorded). */
function controlledLauncher() {
  const launches: ChildLaunch[] = [];
  const finishers = new Map<string, (outcome: ChildOutcome) => void>();
  const launch = async (child: ChildLaunch) => {
    launches.push(child);
    const done = new Promise<ChildOutcome>((resolve) => {
      finishers.set(child.id, resolve);
      child.signal.addEventListener('abort', () => resolve({ state: 'cancelled', answer: null, costUsd: 0 }));
    });
    return { steer: () => true, done };
  };
  return { launch, launches, finish: (id: string, o: ChildOutcome) => finishers.get(id)?.(o) };
}

function setup(
  options: { limits?: Partial<SubagentLimits>; workspace?: string | null; logDir?: string | null } = {},
) {
  const launcher = controlledLauncher();
  const events: ToolEventInput[] = [];
  const costs: number[] = [];
  const manager = new SubagentManager({
    limits: { ...LIMITS, ...options.limits },
    launch: launcher.launch,
    types: loadSubagentTypes(null),
    logDir: () => options.logDir ?? null,
    workspaceOf: () => options.workspace ?? null,
  });
  const registry = createAgentToolRegistry({
    providers: [subagentToolProvider(manager, 'alpha', loadSubagentTypes(null))],
    timeoutMs: 5_000,
    maxResultChars: 100_000,
  });
  const started = registry.start!({
    agentId: 'alpha',
    signal: new AbortController().signal,
    emit: (e) => events.push(e),
    addCost: (d) => costs.push(d),
  });
  const call = async (name: string, args: unknown, signal = new AbortController().signal) => {
    await started;
    return registry.execute(
      { id: `c-${name}`, name, arguments: args },
      { agentId: 'alpha', phase: 'coordination', signal },
    );
  };
  return { manager, registry, launcher, events, costs, call };
}

describe('subagent limits (attacker: a prompt-injected model)', () => {
  it('refuses a task list of 1,000 and a depth it asks for itself', async () => {
    const { call, launcher } = setup();
    const many = await call('spawn_subagents', {
      tasks: Array.from({ length: 1000 }, (_, i) => ({ task: `t${i}` })),
      background: true,
    });
    expect(many.isError).toBe(true);
    expect(many.content).toMatch(/tasks/);
    const deep = await call('spawn_subagents', { tasks: [{ task: 'x' }], depth: 99 });
    expect(deep.isError).toBe(true);
    expect(launcher.launches).toEqual([]);
  });

  it('refuses more than subagent_max_concurrent running at once, starting none of the call', async () => {
    const { call, launcher } = setup({ limits: { maxConcurrent: 2 } });
    const first = await call('spawn_subagents', { tasks: [{ task: 'a' }], background: true });
    expect(first.isError).toBe(false);
    const over = await call('spawn_subagents', { tasks: [{ task: 'b' }, { task: 'c' }], background: true });
    expect(over.isError).toBe(true);
    expect(over.content).toContain('subagent_max_concurrent is 2: 1 running, 2 asked');
    expect(launcher.launches.map((l) => l.task)).toEqual(['a']);
  });

  it('refuses to spawn at max_subagent_depth, with a clear tool error', async () => {
    const { call, launcher } = setup({ limits: { maxDepth: 0 } });
    const result = await call('spawn_subagents', { tasks: [{ task: 'a' }] });
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toContain('max_subagent_depth reached');
    expect(launcher.launches).toEqual([]);
  });

  it('refuses ids that are paths, and ids of another run', async () => {
    const logDir = tempDir();
    const other = setup({ logDir });
    const spawned = await other.call('spawn_subagents', { tasks: [{ task: 'a' }], background: true });
    const otherId = (JSON.parse(spawned.content) as { subagents: { id: string }[] }).subagents[0]!.id;
    expect(fs.existsSync(path.join(logDir, 'subagents', otherId, 'subagent.json'))).toBe(true);

    const { call } = setup({ logDir: tempDir() });
    for (const id of ['../../../etc/passwd', `../${otherId}`, otherId, `${otherId}/../../x`]) {
      const result = await call('subagent_result', { id });
      expect(result.isError, id).toBe(true);
      expect(result.content).toMatch(/^no subagent .* of yours in this run/);
    }
  });
});

describe('context files (attacker: a file outside the workspace)', () => {
  it('reads files of the workspace and refuses ../ paths and symbolic links out', async () => {
    const root = tempDir();
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'inside');
    fs.writeFileSync(path.join(root, 'secret.txt'), 'outside');
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(workspace, 'link.txt'));
    fs.symlinkSync('/etc', path.join(workspace, 'etc'));

    const files = await readContextFiles(workspace, ['notes.md']);
    expect(files.map((f) => [f.name, Buffer.from(f.data).toString()])).toEqual([['notes.md', 'inside']]);
    for (const bad of ['../secret.txt', '../../etc/passwd', '/etc/passwd', 'link.txt', 'etc/passwd']) {
      await expect(readContextFiles(workspace, [bad]), bad).rejects.toThrow(SubagentRefusal);
      await expect(readContextFiles(workspace, [bad]), bad).rejects.toThrow(
        /not inside your workspace|does not exist/,
      );
    }
  });

  it('through spawn_subagents: a refused file starts no subagent', async () => {
    const workspace = tempDir();
    const { call, launcher } = setup({ workspace });
    const result = await call('spawn_subagents', {
      tasks: [{ task: 'a', context_files: ['../../etc/passwd'] }],
    });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('is not inside your workspace');
    expect(launcher.launches).toEqual([]);
  });
});

describe("a subagent's time and life", () => {
  it('has its own timeout, clamped by min and max, and waits beyond the generic tool timeout', async () => {
    const { manager, call, launcher } = setup();
    await call('spawn_subagents', {
      tasks: [
        { task: 'short', timeout_seconds: 5 },
        { task: 'long', timeout_seconds: 99_999 },
        { task: 'plain' },
      ],
      background: true,
    });
    expect(launcher.launches.map((l) => l.timeoutSeconds)).toEqual([60, 900, 300]);
    const provider = subagentToolProvider(manager, 'alpha', new Map());
    expect(provider.minTimeoutMs?.('subagent_result')).toBeGreaterThan(900_000);
  });

  it('keeps running when the waiting turn stops; its result stays reachable by id', async () => {
    const { call, launcher, events, costs } = setup();
    const turn = new AbortController();
    const waiting = call('spawn_subagents', { tasks: [{ task: 'a' }] }, turn.signal);
    await expect.poll(() => launcher.launches.length).toBe(1);
    turn.abort(new Error('turn restarted'));
    await expect(waiting).rejects.toThrow('turn restarted');
    const child = launcher.launches[0]!;
    expect(child.signal.aborted).toBe(false);
    child.onEvent({ type: 'agent.step.finished', costUsd: 0.25 } as never);
    launcher.finish(child.id, { state: 'completed', answer: 'done', costUsd: 0.25 });
    const result = await call('subagent_result', { id: child.id, wait_seconds: 30 });
    expect(JSON.parse(result.content)).toMatchObject({
      id: child.id,
      state: 'completed',
      answer: 'done',
      cost_usd: 0.25,
    });
    expect(costs).toEqual([0.25]);
    expect(events.map((e) => e.type)).toEqual(['subagent.started', 'subagent.event', 'subagent.finished']);
  });
});
