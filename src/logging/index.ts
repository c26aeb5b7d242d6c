export {
  createRunLogWriter,
  LogFolderError,
  type RunLogWriter,
  type RunLogWriterOptions,
  type RunTermination,
} from './log-writer.js';
export { EventJournal, JOURNAL_FLUSH_MS } from './event-journal.js';
export type { RunLogMetadata, ExecutionMetadataDocument } from './metadata-document.js';
export type { StatusDocument, StatusAgentEntry } from './status-document.js';
export type { VoteDocument, VoteEntry } from './vote-document.js';
export type { SnakeUsage } from './snake-usage.js';
export { formatCoordinationTable } from './coordination-table.js';
export { formatLogTimestamp, LOG_FILES } from './paths.js';
export {
  ledgerEntry,
  PERMISSIONS_LEDGER,
  PermissionLedger,
  type LedgerEntry,
  type StopLedgerEntry,
} from './permission-ledger.js';
