import type { AgentSpec } from '../coordination/index.js';
import { findInstructionFiles, instructionsBlock } from '../project-instructions/index.js';
import type { RunWorkspaces } from '../workspace/index.js';

/**
 * Gives every agent with a workspace the project's `AGENTS.md` / `CLAUDE.md` (of `folders`: the run's
 * folder, then each context path) at the end of its system message, quoted (docs/hooks.md). Agents
 * without a workspace have no files to work on, and get nothing.
 */
export function withProjectInstructions(
  agents: AgentSpec[],
  folders: readonly string[],
  workspaces: RunWorkspaces | null,
): AgentSpec[] {
  if (!workspaces) return agents;
  const block = instructionsBlock(findInstructionFiles(folders));
  if (block === '') return agents;
  return agents.map((a) =>
    workspaces.workspaceOf(a.id) === null
      ? a
      : { ...a, systemMessage: a.systemMessage ? `${a.systemMessage}\n\n${block}` : block },
  );
}
