/**
 * Task plans through the built CLI (docs/task-plans.md): a scripted agent with
 * `enable_agent_task_planning` tries a plan with a cycle (refused, with a tool error naming it), makes
 * a valid plan and works through it; the plan is in its workspace as JSON and Markdown, every change
 * is a `task_plan.changed` event, and the next turn of the session (`--continue`) starts from it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/types/events.js';
import {
  agentEntry,
  logDirs,
  makeWorkdir,
  persona,
  readEvents,
  runCli,
  scriptedCalls,
  toolNames,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();

const cyclic = {
  tasks: [
    { id: 'api', description: 'build the API', depends_on: ['tests'] },
    { id: 'tests', description: 'write the tests', depends_on: ['api'] },
  ],
};
const valid = {
  tasks: [
    { id: 'design', description: 'design the API', priority: 'high' },
    { id: 'build', description: 'build it', depends_on: ['design'], verification: 'npm test passes' },
  ],
};

const ofType = <T extends RunEvent['type']>(events: RunEvent[], type: T) =>
  events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);

describe('task plans through the CLI', () => {
  it('refuses a cycle, saves the plan in the workspace, reports each change, and keeps it for --continue', async () => {
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: [agentEntry('a', fake.server.url, { system_message: persona('a'), backend: { cwd: 'ws' } })],
      orchestrator: {
        coordination: { enable_agent_task_planning: true, task_planning_filesystem_mode: true },
      },
    });
    const offered: string[][] = [];
    const first = scriptedCalls([
      { name: 'create_task_plan', arguments: cyclic },
      { name: 'create_task_plan', arguments: valid },
      { name: 'update_task_status', arguments: { task_id: 'design', status: 'completed' } },
      { name: 'update_task_status', arguments: { task_id: 'build', status: 'in_progress' } },
    ]);
    fake.server.setHandler((body) => {
      offered.push(toolNames(body));
      return first(body);
    });
    // The first turn of an interactive session (a question, then /quit), so --continue has one to resume.
    const run = await runCli(['--config', 'config.yaml', '--no-display'], {
      cwd,
      stdin: 'Build an API\n/quit\n',
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('task planning tools are not supported');
    expect(offered[0]).toEqual(
      expect.arrayContaining(['create_task_plan', 'get_ready_tasks', 'clear_task_plan']),
    );

    const [logDir] = logDirs(cwd);
    const events = readEvents(logDir!);
    const refused = ofType(events, 'tool.call.finished').find((e) => e.toolName === 'create_task_plan');
    expect(refused?.isError).toBe(true);
    expect(refused?.result).toContain('dependency cycle refused: api → tests → api');
    const changes = ofType(events, 'task_plan.changed');
    expect(changes.map((c) => [c.agentId, c.action])).toEqual([
      ['a', 'create_task_plan'],
      ['a', 'update_task_status'],
      ['a', 'update_task_status'],
    ]);
    expect(changes.at(-1)!.tasks.map((t) => [t.id, t.status])).toEqual([
      ['design', 'completed'],
      ['build', 'in_progress'],
    ]);
    const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws', 'tasks');
    expect(JSON.parse(fs.readFileSync(path.join(workspace, 'plan.json'), 'utf8')).tasks).toHaveLength(2);
    expect(fs.readFileSync(path.join(workspace, 'plan.md'), 'utf8')).toContain(
      '- [~] **build** (medium) build it',
    );

    // The next turn of the session: the plan the last turn ended with is where this one starts.
    fake.server.setHandler(scriptedCalls([{ name: 'get_task_plan', arguments: {} }]));
    const next = await runCli(['--config', 'config.yaml', '--no-display', '--continue', 'Finish it'], {
      cwd,
      timeoutMs: 60_000,
    });
    expect(next.code, next.stderr).toBe(0);
    const secondLog = logDirs(cwd).find((d) => d !== logDir)!;
    const later = readEvents(secondLog);
    expect(ofType(later, 'task_plan.changed').map((c) => c.action)).toEqual(['restored']);
    const got = ofType(later, 'tool.call.finished').find((e) => e.toolName === 'get_task_plan');
    expect(
      JSON.parse(got!.result).tasks.map((t: { id: string; status: string }) => [t.id, t.status]),
    ).toEqual([
      ['design', 'completed'],
      ['build', 'in_progress'],
    ]);
  });
});
