import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

/** MassGen's default skills folder (relative to where it runs). */
export const MASSGEN_SKILLS_DIRECTORY = '.agent/skills';

/**
 * MassGen's skills keys under `orchestrator.coordination`, applied by the compat pass before the table
 * (`massgen-compat-table.ts` has their documentation rows): `use_skills: true` with `skills_directory`
 * (default `.agent/skills`) becomes the top-level `skills:` folder list, and
 * `load_previous_session_skills: true` becomes `skills.evolve: true`.
 */
export function skillsKeysToSkills(root: Record<string, unknown>, notes: ConfigProblem[]): void {
  const orchestrator = root.orchestrator;
  if (!isRecord(orchestrator) || !isRecord(orchestrator.coordination)) return;
  const coordination = orchestrator.coordination;
  const where: PathSegment[] = ['orchestrator', 'coordination'];
  const {
    use_skills: use,
    skills_directory: directory,
    load_previous_session_skills: previous,
  } = coordination;
  if (use === undefined && directory === undefined && previous === undefined) return;
  delete coordination.use_skills;
  delete coordination.skills_directory;
  delete coordination.load_previous_session_skills;
  const enabled = use === true || previous === true;
  if (!enabled) {
    if (directory !== undefined)
      notes.push({
        path: [...where, 'skills_directory'],
        at: 'key',
        message: `${formatPath([...where, 'skills_directory'])} (MassGen): ignored, use_skills is not true`,
      });
    return;
  }
  if (root.skills !== undefined) {
    notes.push({
      path: [...where, 'use_skills'],
      at: 'key',
      message: `${formatPath([...where, 'use_skills'])} (MassGen): ignored, skills is set too`,
    });
    return;
  }
  const folder = typeof directory === 'string' && directory !== '' ? directory : MASSGEN_SKILLS_DIRECTORY;
  root.skills = { paths: [folder], evolve: previous === true };
}
