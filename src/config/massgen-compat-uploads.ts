import { formatPath, type PathSegment } from './config-path.js';
import type { ConfigProblem } from './diagnostics.js';
import { isRecord } from '../util/guards.js';

/** The keys of MassGen's `upload_files` entries, one per entry. */
const UPLOAD_KEYS = ['image_path', 'audio_path', 'video_path', 'file_path'] as const;

/**
 * MassGen's `backend.upload_files: [{image_path|audio_path|video_path|file_path: …}]`, applied by the
 * compat pass before the table (`massgen-compat-table.ts` has its documentation row): the files become
 * the config's top-level `attachments:`, sent with the question to every agent whose model takes them.
 * MassGen's configs that use it have one agent; with several, the files go to the whole team — the
 * note says so. An entry of another shape is named in a note and left out.
 */
export function uploadFilesToAttachments(
  root: Record<string, unknown>,
  agents: readonly [Record<string, unknown>, PathSegment[]][],
  notes: ConfigProblem[],
): void {
  const found: string[] = [];
  for (const [agent, at] of agents) {
    const backend = agent.backend;
    if (!isRecord(backend) || backend.upload_files === undefined) continue;
    const where: PathSegment[] = [...at, 'backend', 'upload_files'];
    const entries = Array.isArray(backend.upload_files) ? backend.upload_files : [backend.upload_files];
    delete backend.upload_files;
    const files: string[] = [];
    entries.forEach((entry, index) => {
      const key = isRecord(entry) ? UPLOAD_KEYS.find((k) => typeof entry[k] === 'string') : undefined;
      if (typeof entry === 'string') files.push(entry);
      else if (key && isRecord(entry)) files.push(entry[key] as string);
      else
        notes.push({
          path: [...where, index],
          at: 'key',
          message: `${formatPath([...where, index])} (MassGen): left out, expected one of ${UPLOAD_KEYS.join(', ')}`,
        });
    });
    if (files.length === 0) continue;
    found.push(...files);
    notes.push({
      path: where,
      at: 'key',
      message: `${formatPath(where)} (MassGen): sent as the question's attachments (${files.join(', ')})${agents.length > 1 ? ' to every agent of the team whose model takes them, not only this one' : ''}`,
    });
  }
  if (found.length === 0) return;
  const own = Array.isArray(root.attachments) ? (root.attachments as unknown[]) : [];
  root.attachments = [...own, ...found.filter((f) => !own.includes(f))];
}
