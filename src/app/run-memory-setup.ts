import type { MassGenConfig } from '../config/index.js';
import type { AgentSpec } from '../coordination/index.js';
import type { RunMemory } from '../memory/run-memory.js';
import type { RunEvent } from '../types/events.js';
import type { ToolsByAgent } from './build-tools.js';
import type { Env } from './build-agents.js';
import { runScrubber } from './secrets.js';

/**
 * With `memory.enabled` (or `enable_memory_filesystem_mode`): opens the store (LanceDB is imported only now) and retrieves the memories for
 * the question. Null without memory.
 */
export async function startRunMemory(
  config: MassGenConfig,
  options: { question: string; env: Env; cwd: string; baseDir: string },
): Promise<RunMemory | null> {
  // MassGen's filesystem memory mode turns memory on by itself.
  if (!config.memory.enabled && !config.orchestrator.coordination.enable_memory_filesystem_mode) return null;
  const { openRunMemory } = await import('../memory/run-memory.js');
  return openRunMemory({ config: config.memory, ...options, scrubber: runScrubber(config, options.env) });
}

/** The library's tools per agent, plus `search_memory` and `save_memory` for every agent. */
export function withMemoryTools(
  config: MassGenConfig,
  tools: ToolsByAgent | undefined,
  memory: RunMemory | null,
): ToolsByAgent | undefined {
  if (!memory || memory.tools.length === 0) return tools;
  return Object.fromEntries(config.agents.map((a) => [a.id, [...(tools?.[a.id] ?? []), ...memory.tools]]));
}

/** Each agent's system message with the retrieved memories (within the budget) and the tools' hint. */
export function withMemoryNote(
  agents: AgentSpec[],
  memory: RunMemory | null,
  filesystemMode: boolean,
): AgentSpec[] {
  if (!memory) return agents;
  const files = filesystemMode
    ? 'Memory files: your workspace has a memory/ folder of Markdown files, one memory each. Read them with your file tools; to remember something for future runs, write a new memory/<short-name>.md.'
    : '';
  const note = [memory.systemNote, files].filter((s) => s !== '').join('\n\n');
  if (note === '') return agents;
  return agents.map((a) => ({
    ...a,
    systemMessage: a.systemMessage ? `${a.systemMessage}\n\n${note}` : note,
  }));
}

/** After the run: the extraction step on the winner's model; never throws (memory must not fail a run). */
export async function rememberRun(
  memory: RunMemory | null,
  agents: readonly AgentSpec[],
  finished: Extract<RunEvent, { type: 'run.finished' }> | null,
  followUp: boolean,
): Promise<void> {
  if (!memory) return;
  const winner = agents.find((a) => a.id === finished?.winnerId) ?? agents[0];
  const controller = new AbortController();
  // One extraction call may not hold the process open for long.
  const timer = setTimeout(() => controller.abort(new Error('memory extraction timed out')), 120_000);
  try {
    await memory.remember({ backend: winner?.backend ?? null, followUp, signal: controller.signal });
  } catch {
    // The store could not be written: the run's result stands; `massgen memory list` shows what is kept.
  } finally {
    clearTimeout(timer);
  }
}

/** Filesystem mode: each workspace's `memory/` seeded with the retrieved memories, by agent id. */
export async function seedMemoryFolders(
  memory: RunMemory | null,
  enabled: boolean,
  workspaces: Iterable<[string, { workspace: string }]>,
): Promise<Map<string, Map<string, string>>> {
  const seeded = new Map<string, Map<string, string>>();
  if (!memory || !enabled) return seeded;
  const { seedMemoryFiles } = await import('../memory/memory-files.js');
  for (const [id, { workspace }] of workspaces)
    seeded.set(id, await seedMemoryFiles(workspace, memory.retrieved));
  return seeded;
}

/** Filesystem mode: the winner's new or changed `memory/*.md` files become memories. Never throws. */
export async function harvestMemoryFolder(
  memory: RunMemory | null,
  seeded: ReadonlyMap<string, ReadonlyMap<string, string>>,
  workspaceOf: (agentId: string) => string | null,
  finished: Extract<RunEvent, { type: 'run.finished' }> | null,
): Promise<void> {
  const winner = finished?.status === 'completed' ? finished.winnerId : null;
  if (!memory || winner === null || !seeded.has(winner)) return;
  const workspace = workspaceOf(winner);
  if (workspace === null) return;
  try {
    const { readNewMemoryFiles } = await import('../memory/memory-files.js');
    const texts = await readNewMemoryFiles(workspace, seeded.get(winner)!);
    await memory.save(
      texts.map((text) => ({ text, kind: 'note' as const })),
      'files',
    );
  } catch {
    // As with the extraction: memory never fails a run.
  }
}
