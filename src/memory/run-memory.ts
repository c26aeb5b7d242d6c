import os from 'node:os';
import path from 'node:path';
import type { MemoryConfig } from '../config/index.js';
import type { Tool } from '../tools/define-tool.js';
import type { Backend } from '../types/backend.js';
import type { RunEvent, RunWarning } from '../types/events.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { memoryContextBlock } from './context-block.js';
import { embedderFor } from './embedders.js';
import { extractMemories } from './extraction.js';
import { openMemoryStore } from './lancedb-store.js';
import { memoryTools, type MemorySaveMode } from './memory-tools.js';
import type { MemoryHit, MemoryKind, MemoryStore } from './types.js';

/** The store folder of a `memory:` config: `store` (relative to `cwd`), else `.massgen/memory` by scope. */
export function memoryStoreDir(config: MemoryConfig, cwd: string, home: string = os.homedir()): string {
  if (config.store !== undefined) return path.resolve(cwd, config.store.replace(/^~(?=\/|$)/, home));
  return path.join(config.scope === 'user' ? home : cwd, '.massgen', 'memory');
}

/** Opens the store a config names, with its embedder (or the keyword fallback and why). */
export async function openConfiguredStore(
  config: MemoryConfig,
  options: { env: Readonly<Record<string, string | undefined>>; cwd: string; baseDir: string; home?: string },
): Promise<MemoryStore> {
  const { embedder, reason } = await embedderFor(config.embedding, options.env, options.baseDir);
  return openMemoryStore(memoryStoreDir(config, options.cwd, options.home), {
    embedder,
    ...(reason === null ? {} : { keywordReason: reason }),
  });
}

/** What agents are told about the memory tools, by what a save comes to. */
function toolsHint(save: MemorySaveMode): string {
  const search = 'You can call search_memory to look up the notes earlier runs saved';
  if (save === 'off') return `${search}.`;
  const saving =
    save === 'auto'
      ? 'save_memory to remember a fact or decision for future runs'
      : save === 'ask'
        ? 'save_memory to remember a fact or decision for future runs (a person approves each save)'
        : 'save_memory is refused in this run (memory.save is ask and nobody can approve a save)';
  return save === 'refuse' ? `${search}; ${saving}.` : `${search} and ${saving}.`;
}

/** One run's memory: what it retrieved, the tools it offers, and the extraction step after it. */
export interface RunMemory {
  readonly store: MemoryStore;
  /** Said at run start: the keyword fallback, when the store uses it. */
  readonly warnings: RunWarning[];
  /** What was retrieved for the question. */
  readonly retrieved: readonly MemoryHit[];
  /** The text added to each agent's system message (retrieved memories within the budget, tool hints). */
  readonly systemNote: string;
  /** `search_memory` and `save_memory` (none with `memory.tools: false`; no save with `memory.save: off`). */
  readonly tools: Tool[];
  /** What agents' saves come to in this run (`memory.save`, with `ask` as `refuse` when nobody can answer). */
  readonly saveMode: MemorySaveMode;
  /** Every event of the run goes through here (the run id, answers and votes for the extraction). */
  observe(event: RunEvent): void;
  /** After the run: extracts and stores its memories; returns how many were saved and any fallback note. */
  remember(options: {
    backend: Backend | null;
    followUp: boolean;
    signal: AbortSignal;
  }): Promise<{ saved: number; fallback: string | null }>;
  /** Saves texts (scrubbed first) as memories of this run written by `agentId`, e.g. new `memory/*.md` files. */
  save(
    items: readonly { text: string; kind: MemoryKind }[],
    origin: { source: string; agentId: string | null },
  ): Promise<number>;
  close(): Promise<void>;
}

/** Opens the store and retrieves the memories for `question` (a run with `memory.enabled`). */
export async function openRunMemory(options: {
  config: MemoryConfig;
  question: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  baseDir: string;
  scrubber: SecretScrubber;
  /** A person can answer approval questions in this run: `memory.save: ask` asks them, else refuses. */
  interactive: boolean;
}): Promise<RunMemory> {
  const { config, question, scrubber } = options;
  const saveMode: MemorySaveMode = config.save === 'ask' && !options.interactive ? 'refuse' : config.save;
  const store = await openConfiguredStore(config, options);
  const warnings: RunWarning[] =
    store.fallbackReason === null
      ? []
      : [
          {
            code: 'memory_keyword_only',
            message: `memory: ${store.fallbackReason}`,
            key: 'memory.embedding',
          },
        ];
  let retrieved: MemoryHit[] = [];
  try {
    retrieved = await store.search(question, config.top_k);
  } catch (error) {
    warnings.push({ code: 'memory_unavailable', message: `memory: retrieval failed: ${String(error)}` });
  }
  const block = memoryContextBlock(retrieved, config.budget_chars);
  const hint = config.tools ? toolsHint(saveMode) : '';
  const systemNote = [block, hint].filter((s) => s !== '').join('\n\n');
  let runId = 'unknown';
  let finished: Extract<RunEvent, { type: 'run.finished' }> | null = null;
  const events: RunEvent[] = [];
  return {
    store,
    warnings,
    retrieved,
    systemNote,
    tools: config.tools
      ? memoryTools({
          store,
          scrubber,
          runId: () => runId,
          scope: config.scope,
          topK: config.top_k,
          budgetChars: config.budget_chars,
          save: saveMode,
        })
      : [],
    saveMode,
    observe(event) {
      runId = event.runId;
      if (event.type === 'vote.cast' || event.type === 'answer.submitted') events.push(event);
      if (event.type === 'run.finished') finished = event;
    },
    async remember({ backend, followUp, signal }) {
      const done = finished as Extract<RunEvent, { type: 'run.finished' }> | null;
      if (!config.extract || !done || done.status !== 'completed' || done.finalAnswer === null) {
        return { saved: 0, fallback: null };
      }
      const { memories, fallback } = await extractMemories(
        {
          runId: done.runId,
          question: scrubber.text(question),
          finalAnswer: scrubber.text(done.finalAnswer),
          winnerId: done.winnerId,
          events,
          followUp,
        },
        backend,
        signal,
      );
      const saved = await store.add(
        memories.map((m) => ({
          text: scrubber.text(m.text),
          kind: m.kind,
          source: m.source,
          runId: done.runId,
          // The extraction distils the winner's answer: its text is the winner's, in other words.
          agentId: done.winnerId,
          scope: config.scope,
        })),
      );
      return { saved: saved.length, fallback };
    },
    async save(items, { source, agentId }) {
      const saved = await store.add(
        items.map((m) => ({
          text: scrubber.text(m.text),
          kind: m.kind,
          source,
          runId,
          agentId,
          scope: config.scope,
        })),
      );
      return saved.length;
    },
    close: () => store.close(),
  };
}
