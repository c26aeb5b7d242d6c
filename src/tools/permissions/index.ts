export type { Access, CheckPath, ContextPathRule, PathDecision, PathPolicy } from './path-policy.js';
export {
  createPathChecker,
  isWithin,
  safeOpenForRead,
  safeOpenForWrite,
  type SafeOpenOptions,
  type SafeWriteHandle,
} from './check-path.js';
