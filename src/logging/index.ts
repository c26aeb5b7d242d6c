export { createRunLogWriter, type RunLogWriter, type RunLogWriterOptions } from './log-writer.js';
export type { RunLogMetadata, ExecutionMetadataDocument } from './metadata-document.js';
export type { StatusDocument, StatusAgentEntry } from './status-document.js';
export type { VoteDocument, VoteEntry } from './vote-document.js';
export type { SnakeUsage } from './snake-usage.js';
export { formatCoordinationTable } from './coordination-table.js';
export { formatLogTimestamp, LOG_FILES } from './paths.js';
