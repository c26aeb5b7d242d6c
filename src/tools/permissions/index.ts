export type {
  Access,
  CheckPath,
  ContextPathRule,
  PathDecision,
  PathDenial,
  PathPolicy,
} from './path-policy.js';
export {
  createPathChecker,
  isWithin,
  realPathOf,
  safeOpenForRead,
  safeOpenForWrite,
  type SafeOpenOptions,
  type SafeWriteHandle,
} from './check-path.js';
export { createRulePolicy, type RealPathOf } from './rule-policy.js';
export {
  deniedMessage,
  evaluateRules,
  readDenial,
  readDeniedWhy,
  ruleMatches,
  ruleProblems,
  ruleText,
  type AgentRules,
  type CallContext,
  type PermissionAction,
  type PermissionRule,
  type RuleCall,
  type RuleList,
  type RuleMatch,
} from './rules.js';
export { deniedOnDisk } from './denied-on-disk.js';
export { PATH_ARGUMENT_KEYS } from './call-facts.js';
