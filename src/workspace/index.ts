export {
  RunWorkspaces,
  type ContextPathInfo,
  type RunWorkspacesOptions,
  type WorkspaceAgent,
} from './run-workspaces.js';
export { SNAPSHOT_EXCLUDED_DIRS, SNAPSHOT_MAX_FILE_BYTES, inSnapshot } from './snapshot-rule.js';
export { copySnapshot } from './copy-tree.js';
