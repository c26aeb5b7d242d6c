export {
  RunWorkspaces,
  type ContextPathInfo,
  type RunWorkspacesOptions,
  type WorkspaceAgent,
} from './run-workspaces.js';
export { SNAPSHOT_EXCLUDED_DIRS, SNAPSHOT_MAX_FILE_BYTES, inSnapshot } from './snapshot-rule.js';
export { copySnapshot } from './copy-tree.js';
export {
  ContextIsolation,
  type ChangesOutcome,
  type IsolatedView,
  type IsolationSpec,
  type ReviewDecision,
  type ReviewRequest,
  type ReviewSource,
  type Reviewer,
} from './context-isolation.js';
export { gitAvailable } from './git.js';
export { findAtPaths, type AtPath } from './at-paths.js';
