/** What kind of thing a memory records. */
export type MemoryKind = 'fact' | 'decision' | 'question' | 'disagreement' | 'feedback' | 'note';

export const MEMORY_KINDS: readonly MemoryKind[] = [
  'fact',
  'decision',
  'question',
  'disagreement',
  'feedback',
  'note',
];

/** One remembered item, as kept in the store. */
export interface MemoryRecord {
  /** 16 hex digits. */
  id: string;
  text: string;
  kind: MemoryKind;
  /** The run it came from (`manual` for one saved by the CLI). */
  runId: string;
  /**
   * The agent whose text it is: the caller of `save_memory`, or the winner whose answer the extraction
   * (or the fallback, or a `memory/*.md` file) came from. Null when not known: a memory of the
   * extraction saved before origins were recorded, or of a run without a winner.
   */
  agentId: string | null;
  /** ISO time it was written. */
  createdAt: string;
  scope: 'project' | 'user';
  /** How it was written: `save_memory`, `extraction`, `fallback`, `files` (memory/*.md). */
  source: string;
}

/** A memory found by a search, with its relevance (higher is better; scales differ between modes). */
export interface MemoryHit extends MemoryRecord {
  score: number;
}

/** Turns texts into vectors (one per text, all of one length). */
export interface Embedder {
  /** Names the model, e.g. `openai:text-embedding-3-small`: vectors of different models never mix. */
  readonly name: string;
  embed(texts: readonly string[]): Promise<number[][]>;
  close?(): Promise<void>;
}

/** The store's search modes: `hybrid` (full-text index + vectors, fused by rank) or `keyword` only. */
export type MemorySearchMode = 'hybrid' | 'keyword';

/** A memory store on disk (see `openMemoryStore`). */
export interface MemoryStore {
  /** `hybrid` when an embedder is in use, else `keyword`. */
  readonly mode: MemorySearchMode;
  /** Why the store fell back to keyword search, when it did. */
  readonly fallbackReason: string | null;
  add(records: readonly Omit<MemoryRecord, 'id' | 'createdAt'>[]): Promise<MemoryRecord[]>;
  search(query: string, limit: number): Promise<MemoryHit[]>;
  /** Newest first. */
  list(limit?: number): Promise<MemoryRecord[]>;
  /** Removes these ids (full ids or unique prefixes of at least 4 digits); returns the ids removed. */
  forget(ids: readonly string[]): Promise<string[]>;
  count(): Promise<number>;
  close(): Promise<void>;
}
