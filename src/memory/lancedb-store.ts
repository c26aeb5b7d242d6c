import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Connection, Table } from '@lancedb/lancedb';
import { ConfigError } from '../types/errors.js';
import type {
  Embedder,
  MemoryHit,
  MemoryKind,
  MemoryRecord,
  MemorySearchMode,
  MemoryStore,
} from './types.js';

/** The table inside the store's folder. */
const TABLE = 'memories';
/** Beside the table: which embedder wrote its vectors (vectors of different models never mix). */
const META_FILE = 'massgen-memory.json';
/** Rows written since the full-text index was built are searched unindexed; past this, it is rebuilt. */
const REINDEX_AFTER = 1000;

interface Row {
  id: string;
  text: string;
  kind: string;
  run_id: string;
  /** '' when no agent is known; null only in rows written before the column existed. */
  agent_id: string;
  created_at: string;
  scope: string;
  source: string;
  vector?: number[];
  [key: string]: unknown;
}

/** The columns a listing reads (the vector stays on disk). */
const COLUMNS = ['id', 'text', 'kind', 'run_id', 'agent_id', 'created_at', 'scope', 'source'];
/** Sources of memories no single agent wrote; any other source of an old row is the agent's id. */
const NOT_AN_AGENT = new Set(['extraction', 'fallback', 'files', 'manual']);

interface StoreMeta {
  embedder: string | null;
  dimensions: number | null;
}

/**
 * A row as a record. Rows written before origins were recorded have no `agent_id`: there `save_memory`
 * kept the agent's id as the source, so it is read back as the agent, and the source as `save_memory`.
 */
export function toRecord(row: Record<string, unknown>): MemoryRecord {
  const source = String(row.source);
  const legacy = row.agent_id === undefined || row.agent_id === null;
  const agentOfLegacy = NOT_AN_AGENT.has(source) ? null : source;
  return {
    id: String(row.id),
    text: String(row.text),
    kind: String(row.kind) as MemoryKind,
    runId: String(row.run_id),
    agentId: legacy ? agentOfLegacy : String(row.agent_id) || null,
    createdAt: String(row.created_at),
    scope: row.scope === 'user' ? 'user' : 'project',
    source: legacy && agentOfLegacy !== null ? 'save_memory' : source,
  };
}

/** The words of a query, without anything a query parser could read as syntax. */
export function keywordQuery(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).slice(0, 64).join(' ');
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Options of {@link openMemoryStore}. */
export interface OpenMemoryStoreOptions {
  /** Embeddings for hybrid search; null: keyword search only. */
  embedder: Embedder | null;
  /** Why there is no embedder (shown as the fallback reason). */
  keywordReason?: string;
}

/**
 * Opens (creating on first write) the LanceDB memory store in `dir`: one table with a full-text index
 * over the text and, with an embedder, a vector column. Searches are hybrid (full-text and vector
 * results fused by reciprocal rank) or keyword-only. Every write is one LanceDB commit, so a process
 * killed mid-write leaves the table as it was before that write.
 */
export async function openMemoryStore(dir: string, options: OpenMemoryStoreOptions): Promise<MemoryStore> {
  const lancedb = await import('@lancedb/lancedb').catch((error: unknown) => {
    throw new ConfigError('memory needs the LanceDB package, which could not be loaded on this machine', {
      cause: error,
      hint: 'memory is an optional part of massgen: npm install @lancedb/lancedb@0.31.0 apache-arrow@18.1.0 (prebuilt for Linux, macOS and Windows)',
      path: 'memory',
    });
  });
  await mkdir(dir, { recursive: true });
  const db: Connection = await lancedb.connect(dir);
  const meta = await readMeta(dir);
  let table: Table | null = (await db.tableNames()).includes(TABLE) ? await db.openTable(TABLE) : null;
  let embedder = options.embedder;
  let fallbackReason: string | null = embedder
    ? null
    : (options.keywordReason ?? 'no embedding model configured (memory.embedding)');
  if (table && embedder && meta.embedder !== null && meta.embedder !== embedder.name) {
    fallbackReason = `the store's vectors come from ${meta.embedder}, not ${embedder.name}: keyword search only`;
    embedder = null;
  }
  if (table && embedder && meta.embedder === null) {
    fallbackReason = 'the store was created without embeddings: keyword search only';
    embedder = null;
  }
  let ftsReady = false;
  const ensureFts = async (t: Table) => {
    if (ftsReady) return;
    const indices = await t.listIndices();
    const fts = indices.find((i) => i.columns.includes('text'));
    const stats = fts ? await t.indexStats(fts.name) : undefined;
    if (!fts || (stats?.numUnindexedRows ?? 0) > REINDEX_AFTER) {
      await t.createIndex('text', {
        config: lancedb.Index.fts({ stem: true, removeStopWords: true, lowercase: true, asciiFolding: true }),
        replace: true,
      });
    }
    ftsReady = true;
  };
  // Writes go one at a time: LanceDB commits are atomic, and serial commits never conflict.
  let writes: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = writes.then(work, work);
    writes = next.catch(() => {});
    return next;
  };
  const vectorsFor = async (texts: string[]): Promise<number[][] | null> => {
    if (embedder) return embedder.embed(texts);
    // A table made with vectors needs one per row: rows written without an embedder get zeros.
    if (meta.dimensions !== null) return texts.map(() => new Array<number>(meta.dimensions!).fill(0));
    return null;
  };
  let sinceIndex = 0;
  // A store written before origins were recorded gets the column (null in its old rows) on its first
  // write — one schema commit, as atomic as any other — and is read as it is until then.
  let hasOrigin = table === null || (await table.schema()).fields.some((f) => f.name === 'agent_id');
  const addOriginColumn = async (t: Table) => {
    if (hasOrigin) return;
    await t.addColumns([{ name: 'agent_id', valueSql: 'CAST(NULL AS STRING)' }]);
    hasOrigin = true;
  };

  const store: MemoryStore = {
    get mode(): MemorySearchMode {
      return embedder ? 'hybrid' : 'keyword';
    },
    get fallbackReason() {
      return fallbackReason;
    },
    add: (records) =>
      serial(async () => {
        if (records.length === 0) return [];
        const now = new Date().toISOString();
        const written = records.map((r) => ({ ...r, id: randomBytes(8).toString('hex'), createdAt: now }));
        const vectors = await vectorsFor(written.map((r) => r.text));
        const rows: Row[] = written.map((r, i) => ({
          id: r.id,
          text: r.text,
          kind: r.kind,
          run_id: r.runId,
          agent_id: r.agentId ?? '',
          created_at: r.createdAt,
          scope: r.scope,
          source: r.source,
          ...(vectors ? { vector: vectors[i]! } : {}),
        }));
        if (table) {
          await addOriginColumn(table);
          await table.add(rows);
          sinceIndex += rows.length;
          if (sinceIndex > REINDEX_AFTER) {
            ftsReady = false;
            sinceIndex = 0;
          }
        } else {
          if (vectors && embedder) {
            meta.embedder = embedder.name;
            meta.dimensions = vectors[0]!.length;
          }
          await writeFile(path.join(dir, META_FILE), `${JSON.stringify(meta)}\n`);
          table = await db.createTable(TABLE, rows);
        }
        return written;
      }),
    async search(query, limit) {
      if (!table) return [];
      const words = keywordQuery(query);
      await serial(() => ensureFts(table!));
      let rows: Record<string, unknown>[];
      if (embedder) {
        const [vector] = await embedder.embed([query]);
        let q = table.query().nearestTo(vector!).distanceType('cosine');
        if (words) {
          q = q
            .fullTextSearch(new lancedb.MatchQuery(words, 'text'))
            .rerank(await lancedb.rerankers.RRFReranker.create());
        }
        rows = await q.limit(limit).toArray();
      } else {
        if (!words) return [];
        rows = await table
          .query()
          .fullTextSearch(new lancedb.MatchQuery(words, 'text'))
          .limit(limit)
          .toArray();
      }
      return rows.map((row) => ({
        ...toRecord(row),
        score: Number(row._relevance_score ?? row._score ?? 1 - Number(row._distance ?? 1)),
      })) satisfies MemoryHit[];
    },
    async list(limit) {
      if (!table) return [];
      const rows = await table
        .query()
        .select(COLUMNS.filter((c) => c !== 'agent_id' || hasOrigin))
        .toArray();
      const records = rows.map(toRecord).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      return limit === undefined ? records : records.slice(0, limit);
    },
    forget: (ids) =>
      serial(async () => {
        if (!table || ids.length === 0) return [];
        const all = await table.query().select(['id']).toArray();
        const known = all.map((r) => String(r.id));
        const doomed = new Set<string>();
        for (const wanted of ids) {
          const w = wanted.toLowerCase();
          if (!/^[0-9a-f]{4,16}$/.test(w)) continue;
          const matches = known.filter((id) => id.startsWith(w));
          if (matches.length === 1) doomed.add(matches[0]!);
        }
        if (doomed.size === 0) return [];
        await table.delete(`id IN (${[...doomed].map(quote).join(', ')})`);
        return [...doomed];
      }),
    async count() {
      return table ? table.countRows() : 0;
    },
    async close() {
      await writes;
      table?.close();
      db.close();
      await embedder?.close?.();
    },
  };
  return store;
}

async function readMeta(dir: string): Promise<StoreMeta> {
  try {
    const parsed = JSON.parse(await readFile(path.join(dir, META_FILE), 'utf8')) as Partial<StoreMeta>;
    return { embedder: parsed.embedder ?? null, dimensions: parsed.dimensions ?? null };
  } catch {
    return { embedder: null, dimensions: null };
  }
}
