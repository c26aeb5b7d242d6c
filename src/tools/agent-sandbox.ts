import type { ToolContext } from '../types/tool.js';
import type { ExecutionMode, SandboxLayout } from './execute-command/index.js';
import type { CheckPath } from './permissions/index.js';

/**
 * What an agent with a workspace works inside: its folder, the path policy of its file tools, the
 * environment for commands, where `execute_command` runs (null: not offered), and what its OS sandbox
 * shows in each phase (`bwrap` null where this machine has no sandbox). The app makes one per agent
 * (`app/sandboxes.ts`); every tool that touches files or starts processes for the agent obeys it.
 */
export interface AgentSandbox {
  workspace: string;
  checkPath: CheckPath;
  env: Readonly<Record<string, string | undefined>>;
  commands: ExecutionMode | null;
  layout: (phase: ToolContext['phase']) => SandboxLayout;
  bwrap: string | null;
}
