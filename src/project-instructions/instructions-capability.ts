import { withPromptSection, type CapabilityParts, type RunContext } from '../capability/index.js';
import { findInstructionFiles, instructionsBlock } from './instruction-files.js';

/**
 * The project's `AGENTS.md` / `CLAUDE.md` (of the run's folder, then each context path) at the end of
 * the system message of every agent with a workspace (those with a sandbox), quoted. Agents without
 * one have no files to work on, and get nothing.
 */
export async function prepare(run: RunContext): Promise<CapabilityParts> {
  if (run.sandboxes.size === 0) return {};
  const block = instructionsBlock(findInstructionFiles([run.cwd, ...run.contextPaths]));
  if (block === '') return {};
  return {
    prompt: (agentId, message) => (run.sandboxes.has(agentId) ? withPromptSection(message, block) : message),
  };
}
