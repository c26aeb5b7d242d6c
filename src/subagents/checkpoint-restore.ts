import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunWarning } from '../types/events.js';
import { describeError } from '../types/errors.js';
import { readCheckpoint, type SubagentCheckpoint } from './checkpoint.js';
import { SUBAGENT_ID } from './spawn-arguments.js';

/** What a previous turn's subagents left: the checkpoints to take over, and those refused (said as warnings). */
export interface PreviousSubagents {
  checkpoints: SubagentCheckpoint[];
  refused: RunWarning[];
}

/** What a checkpoint must agree with to be taken over. */
export interface RestoreRules {
  /** The agents of this run: a subagent of any other agent has no one to report to. */
  agentIds: ReadonlySet<string>;
  /** The subagent types known to this run. */
  typeNames: ReadonlySet<string>;
}

/** The most checkpoints read back from one log folder (a run may never have had more running at once). */
const MAX_CHECKPOINTS = 1000;

const refusal = (dir: string, why: string): RunWarning => ({
  code: 'subagent_checkpoint_refused',
  message: `subagent checkpoint ${dir} refused: ${why}; it is neither re-started nor shown`,
});

/**
 * Why a checkpoint may not be taken over, or null. A checkpoint is data a run wrote whose agents may
 * have been talked into anything, and its folder may have been edited since: its id must be its
 * folder's name, its log folder where subagents' logs go (`<a log folder>/subagents/<id>`, beside the
 * previous turn's), its agent one of this run's and its type one this run knows. Its team is never
 * read from it: a re-started subagent gets the team this run's config gives it.
 */
function problemOf(
  checkpoint: SubagentCheckpoint,
  dir: string,
  previousLogDir: string,
  rules: RestoreRules,
): string | null {
  if (checkpoint.id !== path.basename(dir)) return `its id ${checkpoint.id} is not its folder's name`;
  if (checkpoint.logDir !== null) {
    const logsRoot = path.dirname(path.resolve(previousLogDir));
    const relative = path.relative(logsRoot, path.resolve(checkpoint.logDir)).split(path.sep);
    const [logFolder, subagents, id, ...rest] = relative;
    if (!logFolder || logFolder === '..' || subagents !== 'subagents' || id !== checkpoint.id || rest.length)
      return `its log folder ${checkpoint.logDir} is outside ${path.join(logsRoot, '<log folder>', 'subagents', checkpoint.id)}`;
  }
  if (!rules.agentIds.has(checkpoint.agentId))
    return `its agent ${checkpoint.agentId} is not an agent of this run`;
  if (checkpoint.subagentType !== null && !rules.typeNames.has(checkpoint.subagentType))
    return `its subagent_type ${checkpoint.subagentType} is not a known type`;
  return null;
}

/**
 * Reads the checkpoints a previous turn left in `<previousLogDir>/subagents/<id>/subagent.json`, each
 * validated with zod and {@link problemOf}. Only real folders with a subagent id's name are looked
 * into (a link planted there is not followed). A missing `subagents/` folder is no subagents.
 */
export async function readPreviousSubagents(
  previousLogDir: string,
  rules: RestoreRules,
): Promise<PreviousSubagents> {
  const root = path.join(previousLogDir, 'subagents');
  const result: PreviousSubagents = { checkpoints: [], refused: [] };
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    result.refused.push(refusal(root, `the folder cannot be read (${describeError(error)})`));
    return result;
  }
  if (entries.length > MAX_CHECKPOINTS) {
    result.refused.push(
      refusal(root, `it holds ${entries.length} entries; only the first ${MAX_CHECKPOINTS} are read`),
    );
  }
  for (const entry of entries.slice(0, MAX_CHECKPOINTS)) {
    const dir = path.join(root, entry.name);
    if (!entry.isDirectory() || !SUBAGENT_ID.test(entry.name)) {
      result.refused.push(refusal(dir, 'it is not a subagent folder'));
      continue;
    }
    const read = await readCheckpoint(dir);
    const problem = 'problem' in read ? read.problem : problemOf(read.checkpoint, dir, previousLogDir, rules);
    if (problem !== null) result.refused.push(refusal(dir, problem));
    else if ('checkpoint' in read) result.checkpoints.push(read.checkpoint);
  }
  result.checkpoints.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
  return result;
}
