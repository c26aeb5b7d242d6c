export type { Access, CheckPath, ContextPathRule, PathDecision, PathPolicy } from './path-policy.js';
export {
  createPathChecker,
  isWithin,
  safeOpenForRead,
  safeOpenForWrite,
  type SafeOpenOptions,
  type SafeWriteHandle,
} from './check-path.js';
export {
  createRulePolicy,
  deniedMessage,
  evaluateRules,
  ruleMatches,
  ruleProblems,
  ruleText,
  type AgentRules,
  type CallContext,
  type PermissionAction,
  type PermissionRule,
  type RuleList,
  type RuleMatch,
} from './rules.js';
export { PATH_ARGUMENT_KEYS } from './call-facts.js';
