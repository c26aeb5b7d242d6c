import path from 'node:path';
import type { ErrorInfo, RunEvent, RunStatus } from '../types/events.js';
import { EventJournal } from './event-journal.js';
import { systemClock, type Clock } from '../util/clock.js';
import { initialRunState, reduceRunState, type RunState } from '../types/run-state.js';
import { writeFileAtomic, writeFileAtomicSync } from './atomic-write.js';
import { CoordinationTable } from './coordination-table.js';
import { eventsDocument } from './events-document.js';
import { allocateLogDir, LogFolderError } from './log-dir.js';
import { buildExecutionMetadata, MetadataYaml, type RunLogMetadata } from './metadata-document.js';
import { agentAnswerRelPath, finalAnswerRelPath, formatLogTimestamp, LOG_FILES } from './paths.js';
import { buildStatusDocument } from './status-document.js';
import { buildVoteDocument } from './vote-document.js';
import { PERMISSIONS_LEDGER, PermissionLedger } from './permission-ledger.js';
import { buildScoreDocument, hasQualityData } from './score-document.js';

export { LogFolderError };

/**
 * Live status snapshots are coalesced to at most one write per this many milliseconds, and one more
 * interval per {@link STATUS_BYTES_PER_INTERVAL} of the last snapshot: a big team's status.json (600 KB
 * for a thousand agents) is not rebuilt ten times a second.
 */
const STATUS_DEBOUNCE_MS = 100;
const STATUS_BYTES_PER_INTERVAL = 64 * 1024;

/** Options of {@link createRunLogWriter}. */
export interface RunLogWriterOptions {
  /** Folder that holds every run's log folder, e.g. `<cwd>/.massgen/massgen_logs`. */
  rootDir: string;
  /** Names the log folder; defaults to the clock's now. */
  startedAt?: Date;
  metadata: RunLogMetadata;
  /** Stamps `updated_at` and elapsed times. Default: the system clock. */
  clock?: Pick<Clock, 'now'>;
}

/** How a run ended when the process must stop before the engine could say so itself. */
export interface RunTermination {
  status: RunStatus;
  exitCode: number;
  error: ErrorInfo;
}

/**
 * Writes one run's log folder from its event stream. Once created it never throws and never rejects:
 * a logging failure must not end a run, so the first one is kept in {@link RunLogWriter.writeError}.
 */
export interface RunLogWriter {
  /** Absolute path of this run's log folder. */
  readonly logDir: string;
  /** Absolute path of `status.json`, which is rewritten while the run goes on. */
  readonly statusPath: string;
  /** The first error met while creating the folder or writing a file, if any. */
  readonly writeError: Error | null;
  /** Records one event. Synchronous and cheap: disk writes happen later, off this call. */
  handle(event: RunEvent): void;
  /** Writes every file from what has been gathered so far. Safe to call repeatedly and concurrently. */
  flush(): Promise<void>;
  /** Like {@link flush}, but synchronous: the last resort for process-exit handlers. */
  flushSync(): void;
  /**
   * For a process that must exit now (second Ctrl-C, crash): when the run has not finished, records a
   * `run.finished` with this outcome (so `status.json` and `events.jsonl` end in a terminal state),
   * then writes everything synchronously.
   */
  terminateSync(outcome: RunTermination): void;
  /** Absolute path of `final/<winner id>/answer.txt` once a final answer is known (written on the next write), else null. */
  finalAnswerPath(): string | null;
  /** {@link finalAnswerPath} once the final answer is on disk as it stands, else null (not yet, or a failed write). */
  writtenFinalAnswerPath(): string | null;
  /** Whether `status.json` has been written at least once. */
  readonly statusWritten: boolean;
}

interface PendingAnswer {
  relPath: string;
  content: string;
  written: boolean;
}

/** One file to write, and what to remember once it is on disk. */
interface PlannedWrite {
  relPath: string;
  /** The text, or its pieces as they are produced (a document too big to hold at once). */
  content: string | Iterable<string>;
  done: () => void;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

const isTextEvent = (event: RunEvent): boolean =>
  event.type === 'agent.text.start' || event.type === 'agent.text.delta' || event.type === 'agent.text.end';

class FileRunLogWriter implements RunLogWriter {
  readonly statusPath: string;
  private state: RunState = initialRunState();
  /** Events handled: the events themselves are in the journal, and the table keeps only its rows. */
  private eventCount = 0;
  private readonly table = new CoordinationTable();
  private readonly metadataYaml = new MetadataYaml();
  private readonly answers: PendingAnswer[] = [];
  private readonly usedAnswerPaths = new Set<string>();
  private finalWritten: { relPath: string; content: string } | null = null;
  private statusOnDisk = false;
  /** Characters of the last status snapshot: a bigger one is rewritten less often. */
  private statusLength = 0;
  private presenterId: string | null = null;
  private durationMs: number | null = null;
  /** Event counts at the last successful write, so unchanged big files are not rewritten. */
  private eventsWritten = -1;
  private tableWritten = -1;
  private firstError: Error | null;
  /** Chains async writes so two never touch the same file at once. */
  private queue: Promise<void> = Promise.resolve();
  /** Bumped by flushSync: async writes planned before it hold older content and must not land. */
  private generation = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastEvent: RunEvent | null = null;
  /** `permissions.jsonl`: every decision on a tool call (and each Stop hook's block), appended as it is made. */
  private readonly ledger: PermissionLedger;

  constructor(
    readonly logDir: string,
    private readonly startedAt: Date,
    private readonly metadata: RunLogMetadata,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly journal: EventJournal,
  ) {
    this.statusPath = path.join(logDir, LOG_FILES.status);
    this.firstError = null;
    this.ledger = new PermissionLedger(path.join(logDir, PERMISSIONS_LEDGER), (e) => this.recordError(e));
  }

  get writeError(): Error | null {
    return this.firstError;
  }

  handle(event: RunEvent): void {
    try {
      this.journal.append(event);
      this.lastEvent = event;
      this.eventCount++;
      this.table.add(event);
      this.state = reduceRunState(this.state, event);
      if (event.type === 'tool.permission.decided' || event.type === 'hook.stop.decided')
        this.ledger.record(event);
      else if (event.type === 'answer.submitted') this.rememberAnswer(event.agentId, event.ts, event.content);
      else if (event.type === 'presentation.finished') this.presenterId = event.agentId;
      else if (event.type === 'run.finished') this.durationMs = event.durationMs;

      if (event.type === 'run.finished') {
        this.journal.close();
        this.cancelTimer();
        void this.enqueue(false);
      } else if (!isTextEvent(event)) {
        this.scheduleStatus();
      }
    } catch (error) {
      this.recordError(error);
    }
  }

  flush(): Promise<void> {
    this.journal.flush();
    this.cancelTimer();
    return this.enqueue(true);
  }

  terminateSync(outcome: RunTermination): void {
    const last = this.lastEvent;
    if (this.state.phase !== 'finished' && last !== null) {
      this.handle({
        type: 'run.finished',
        runId: last.runId,
        seq: last.seq + 1,
        ts: this.clock.now(),
        status: outcome.status,
        exitCode: outcome.exitCode,
        winnerId: null,
        finalAnswer: null,
        durationMs: Math.max(0, this.clock.now() - (this.state.startedAt ?? this.startedAt.getTime())),
        usage: Object.fromEntries(this.state.agents.map((a) => [a.agentId, a.usage])),
        costUsd: Object.fromEntries(this.state.agents.map((a) => [a.agentId, a.costUsd])),
        error: outcome.error,
      });
    }
    this.flushSync();
  }

  flushSync(): void {
    this.journal.flush();
    this.cancelTimer();
    this.generation++;
    try {
      for (const write of this.plan(true)) {
        try {
          writeFileAtomicSync(path.join(this.logDir, write.relPath), write.content);
          write.done();
        } catch (error) {
          this.recordError(error);
        }
      }
    } catch (error) {
      this.recordError(error);
    }
  }

  finalAnswerPath(): string | null {
    const relPath = this.finalRelPath();
    return relPath === null ? null : path.join(this.logDir, relPath);
  }

  writtenFinalAnswerPath(): string | null {
    const relPath = this.finalRelPath();
    const written = this.finalWritten;
    if (relPath === null || written?.relPath !== relPath || written.content !== this.state.finalAnswer)
      return null;
    return path.join(this.logDir, relPath);
  }

  get statusWritten(): boolean {
    return this.statusOnDisk;
  }

  private finalRelPath(): string | null {
    const winner = this.presenterId ?? this.state.winnerId;
    return winner === null || this.state.finalAnswer === null ? null : finalAnswerRelPath(winner);
  }

  private rememberAnswer(agentId: string, ts: number, content: string): void {
    const stamp = formatLogTimestamp(new Date(ts));
    let relPath = agentAnswerRelPath(agentId, stamp);
    // Two answers of one agent within a millisecond would otherwise share a folder.
    for (let n = 2; this.usedAnswerPaths.has(relPath); n++)
      relPath = agentAnswerRelPath(agentId, `${stamp}_${n}`);
    this.usedAnswerPaths.add(relPath);
    this.answers.push({ relPath, content, written: false });
  }

  private scheduleStatus(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.enqueue(false);
      },
      STATUS_DEBOUNCE_MS * Math.max(1, Math.ceil(this.statusLength / STATUS_BYTES_PER_INTERVAL)),
    );
    // A pending status write must not keep a finished process alive.
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
  }

  private enqueue(full: boolean): Promise<void> {
    const task = this.queue
      .then(() => this.writeAsync(full))
      .catch((error: unknown) => this.recordError(error));
    this.queue = task;
    return task;
  }

  private async writeAsync(full: boolean): Promise<void> {
    const generation = this.generation;
    const current = (): boolean => generation === this.generation;
    for (const write of this.plan(full)) {
      if (!current()) return;
      try {
        if (await writeFileAtomic(path.join(this.logDir, write.relPath), write.content, current))
          write.done();
      } catch (error) {
        this.recordError(error);
      }
    }
  }

  /**
   * The files to (re)write now, built from memory. A light pass (`full` false) writes answers, the final
   * answer and status.json; a full pass adds the event log, vote summary, table and metadata.
   * status.json comes last so the answer file it points to already exists.
   */
  private plan(full: boolean): PlannedWrite[] {
    const writes: PlannedWrite[] = [];
    for (const answer of this.answers) {
      if (!answer.written) {
        writes.push({
          relPath: answer.relPath,
          content: answer.content,
          done: () => (answer.written = true),
        });
      }
    }
    const finalRelPath = this.finalRelPath();
    const finalAnswer = this.state.finalAnswer;
    if (
      finalRelPath !== null &&
      finalAnswer !== null &&
      (this.finalWritten?.relPath !== finalRelPath || this.finalWritten.content !== finalAnswer)
    ) {
      const written = { relPath: finalRelPath, content: finalAnswer };
      writes.push({ ...written, done: () => (this.finalWritten = written) });
    }
    if (full) this.planFull(writes);
    const status = buildStatusDocument(this.state, {
      startedAt: this.startedAt,
      now: this.clock.now(),
      finalAnswerFile: this.finalAnswerPath(),
    });
    const statusText = `${JSON.stringify(status, null, 2)}\n`;
    this.statusLength = statusText.length;
    writes.push({
      relPath: LOG_FILES.status,
      content: statusText,
      done: () => (this.statusOnDisk = true),
    });
    return writes;
  }

  private planFull(writes: PlannedWrite[]): void {
    const count = this.eventCount;
    if (count !== this.eventsWritten) {
      // coordination_events.json is read back from the journal, which must hold every event counted.
      this.journal.flush();
      writes.push({
        relPath: LOG_FILES.events,
        content: eventsDocument(this.journal.file),
        done: () => (this.eventsWritten = count),
      });
    }
    if (this.state.coordinationEnd !== null || this.state.phase === 'finished') {
      const vote = buildVoteDocument(this.state);
      writes.push({ relPath: LOG_FILES.vote, content: `${JSON.stringify(vote, null, 2)}\n`, done: () => {} });
    }
    if (hasQualityData(this.state)) {
      const scores = buildScoreDocument(this.state);
      writes.push({
        relPath: LOG_FILES.scores,
        content: `${JSON.stringify(scores, null, 2)}\n`,
        done: () => {},
      });
    }
    if (count !== this.tableWritten) {
      writes.push({
        relPath: LOG_FILES.table,
        content: this.table.render(),
        done: () => (this.tableWritten = count),
      });
    }
    const metadata = buildExecutionMetadata(this.state, {
      startedAt: this.startedAt,
      now: this.clock.now(),
      durationMs: this.durationMs,
      finalAnswerFile: this.finalAnswerPath(),
      metadata: this.metadata,
    });
    writes.push({
      relPath: LOG_FILES.metadata,
      content: this.metadataYaml.render(metadata),
      done: () => {},
    });
  }

  private recordError(error: unknown): void {
    this.firstError ??= asError(error);
  }

  /** For the journal, which reports its write errors here. */
  noteError(error: unknown): void {
    this.recordError(error);
  }
}

/**
 * Creates the run's log folder `<rootDir>/log_<YYYYMMDD_HHMMSS_ffffff>` (suffixed `_2`, `_3`… when taken)
 * with its `events.jsonl`, and returns a writer to feed every {@link RunEvent} to.
 * @throws {LogFolderError} when the folder cannot be created or written.
 */
export async function createRunLogWriter(options: RunLogWriterOptions): Promise<RunLogWriter> {
  const clock = options.clock ?? systemClock;
  const startedAt = options.startedAt ?? new Date(clock.now());
  const { logDir, error } = await allocateLogDir(options.rootDir, startedAt);
  if (error) throw new LogFolderError(logDir, error);
  let writer: FileRunLogWriter | null = null;
  let journal: EventJournal;
  try {
    journal = new EventJournal(path.join(logDir, LOG_FILES.journal), (e) => writer?.noteError(e));
  } catch (cause) {
    throw new LogFolderError(logDir, cause);
  }
  writer = new FileRunLogWriter(logDir, startedAt, options.metadata, clock, journal);
  return writer;
}
