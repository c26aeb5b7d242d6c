import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolEventInput } from '../types/tool.js';
import { writeCheckpoint, type SubagentCheckpoint } from './checkpoint.js';
import { readPreviousSubagents, type RestoreRules } from './checkpoint-restore.js';
import type { ChildLaunch, ChildOutcome } from './child-launch.js';
import { SubagentManager } from './subagent-manager.js';
import { newCheckpoint } from './subagent-records.js';
import { loadSubagentTypes } from './subagent-types.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-subagent-restore-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const RULES: RestoreRules = { agentIds: new Set(['alpha']), typeNames: new Set(['researcher']) };

/** Two log folders of one logs root: the killed turn's and the one continuing it. */
function logFolders() {
  const root = tempDir();
  const previous = path.join(root, 'log_20261129_060000_000001');
  const next = path.join(root, 'log_20261129_061000_000002');
  fs.mkdirSync(previous);
  fs.mkdirSync(next);
  return { root, previous, next };
}

function checkpoint(id: string, over: Partial<SubagentCheckpoint> = {}): SubagentCheckpoint {
  return {
    ...newCheckpoint(
      id,
      'alpha',
      { task: `task of ${id}`, context_files: ['notes.md'] },
      {
        subagentType: null,
        timeoutSeconds: 120,
        background: true,
        startedAt: '2026-11-29T06:00:00.000Z',
      },
    ),
    ...over,
  };
}

function manager(logDir: string, workspace: string | null) {
  const launches: ChildLaunch[] = [];
  const finishers = new Map<string, (o: ChildOutcome) => void>();
  const subagents = new SubagentManager({
    limits: { defaultTimeout: 300, minTimeout: 60, maxTimeout: 900, maxConcurrent: 3, maxDepth: 1 },
    types: loadSubagentTypes(null),
    logDir: () => logDir,
    workspaceOf: () => workspace,
    launch: async (child) => {
      launches.push(child);
      return {
        steer: () => true,
        done: new Promise<ChildOutcome>((resolve) => {
          finishers.set(child.id, resolve);
          child.signal.addEventListener('abort', () =>
            resolve({ state: 'cancelled', answer: null, costUsd: 0 }),
          );
        }),
      };
    },
  });
  return { subagents, launches, finish: (id: string, o: ChildOutcome) => finishers.get(id)?.(o) };
}

describe('taking over a previous turn’s subagents (--continue)', () => {
  it('keeps finished ones by id and re-starts running ones (same id, task, files) in this run’s log folder', async () => {
    const { previous, next } = logFolders();
    const workspace = tempDir();
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'context');
    const done = checkpoint('sa1-0000000a', {
      state: 'completed',
      answer: 'forty-two',
      costUsd: 0.5,
      finishedAt: '2026-11-29T06:01:00.000Z',
      logDir: path.join(previous, 'subagents', 'sa1-0000000a'),
    });
    const running = checkpoint('sa2-0000000b', {
      costUsd: 0.25,
      logDir: path.join(previous, 'subagents', 'sa2-0000000b'),
    });
    await writeCheckpoint(previous, done);
    await writeCheckpoint(previous, running);

    const read = await readPreviousSubagents(previous, RULES);
    expect(read.refused).toEqual([]);
    const { subagents, launches, finish } = manager(next, workspace);
    await subagents.restore(read.checkpoints, previous);

    // Re-started before any agent looked: its events are kept until the agent's sink attaches.
    expect(launches.map((l) => [l.id, l.task, l.logRoot])).toEqual([
      ['sa2-0000000b', 'task of sa2-0000000b', path.join(next, 'subagents', 'sa2-0000000b')],
    ]);
    expect(launches[0]!.files.map((f) => Buffer.from(f.data).toString())).toEqual(['context']);
    const events: ToolEventInput[] = [];
    const costs: number[] = [];
    subagents.attach('alpha', { emit: (e) => events.push(e), addCost: (d) => costs.push(d) });
    expect(events.map((e) => [e.type, 'subagentId' in e ? e.subagentId : null])).toEqual([
      ['subagent.started', 'sa1-0000000a'],
      ['subagent.finished', 'sa1-0000000a'],
      ['subagent.started', 'sa2-0000000b'],
    ]);
    expect(events.filter((e) => e.type === 'subagent.started').map((e) => e.resumedFrom)).toEqual([
      previous,
      previous,
    ]);

    expect(subagents.list('alpha')).toEqual([
      expect.objectContaining({ id: 'sa1-0000000a', state: 'completed', restored: true }),
      expect.objectContaining({ id: 'sa2-0000000b', state: 'running', restored: true }),
    ]);
    const signal = new AbortController().signal;
    expect(await subagents.result('alpha', 'sa1-0000000a', 0, signal)).toMatchObject({
      answer: 'forty-two',
    });
    finish('sa2-0000000b', { state: 'completed', answer: 'resumed answer', costUsd: 0.1 });
    expect(await subagents.result('alpha', 'sa2-0000000b', 30, signal)).toMatchObject({
      state: 'completed',
      answer: 'resumed answer',
      cost_usd: 0.35,
    });
    // Only what this run spent is counted into the agent; the earlier turn's spending was counted there.
    expect(costs).toHaveLength(1);
    expect(costs[0]).toBeCloseTo(0.1, 9);
    // Both checkpoints are now in this run's log folder too: a later --continue finds them here.
    const again = await readPreviousSubagents(next, RULES);
    expect(again.checkpoints.map((c) => [c.id, c.state])).toEqual([
      ['sa1-0000000a', 'completed'],
      ['sa2-0000000b', 'completed'],
    ]);
    // A new subagent does not take a restored one's number.
    const spawned = await subagents.spawn('alpha', [{ task: 'new one' }], true);
    expect(spawned[0]!.id).toMatch(/^sa3-/);
    await subagents.close();
  });
});

describe('a tampered checkpoint is refused with a warning, never followed (attacker: a prompt-injected run)', () => {
  it('refuses a log folder outside, an unknown agent or type, a renamed id, links and junk', async () => {
    const { previous } = logFolders();
    const sub = (id: string) => path.join(previous, 'subagents', id);
    await writeCheckpoint(previous, checkpoint('sa1-00000001', { logDir: '/etc' }));
    await writeCheckpoint(
      previous,
      checkpoint('sa2-00000002', { logDir: path.join(sub('sa2-00000002'), '../../../..') }),
    );
    await writeCheckpoint(
      previous,
      checkpoint('sa3-00000003', { logDir: sub('sa3-00000003'), agentId: 'mallory' }),
    );
    await writeCheckpoint(
      previous,
      checkpoint('sa4-00000004', { logDir: sub('sa4-00000004'), subagentType: 'rootkit' }),
    );
    await writeCheckpoint(previous, checkpoint('sa5-00000005', { logDir: sub('sa5-00000005') }));
    fs.renameSync(sub('sa5-00000005'), sub('sa6-00000006')); // its id no longer its folder's
    fs.mkdirSync(sub('sa7-00000007'));
    fs.writeFileSync(path.join(sub('sa7-00000007'), 'subagent.json'), '{"version": 1, "id": "sa7-00000007"');
    const outside = tempDir();
    await writeCheckpoint(outside, checkpoint('sa8-00000008', { logDir: null }));
    fs.symlinkSync(path.join(outside, 'subagents', 'sa8-00000008'), sub('sa8-00000008'));
    fs.mkdirSync(sub('sa9-00000009'));
    fs.symlinkSync(
      path.join(outside, 'subagents', 'sa8-00000008', 'subagent.json'),
      path.join(sub('sa9-00000009'), 'subagent.json'),
    );
    // One good one among them, to show the reader works.
    await writeCheckpoint(previous, checkpoint('sa10-0000000a', { logDir: sub('sa10-0000000a') }));

    const read = await readPreviousSubagents(previous, RULES);
    expect(read.checkpoints.map((c) => c.id)).toEqual(['sa10-0000000a']);
    const said = read.refused.map((w) => w.message).sort();
    expect(read.refused.every((w) => w.code === 'subagent_checkpoint_refused')).toBe(true);
    const about = (id: string) =>
      said.find((m) => m.includes(`${id} refused`)) ?? `(nothing said about ${id})`;
    expect(about('sa1-00000001')).toMatch(/its log folder \/etc is outside/);
    expect(about('sa2-00000002')).toMatch(/its log folder .* is outside/);
    expect(about('sa3-00000003')).toContain('its agent mallory is not an agent of this run');
    expect(about('sa4-00000004')).toContain('its subagent_type rootkit is not a known type');
    expect(about('sa6-00000006')).toContain("its id sa5-00000005 is not its folder's name");
    expect(about('sa7-00000007')).toContain('is not JSON');
    expect(about('sa8-00000008')).toContain('it is not a subagent folder');
    expect(about('sa9-00000009')).toContain('subagent.json is not a regular file');
    expect(said).toHaveLength(8);
  });
});
