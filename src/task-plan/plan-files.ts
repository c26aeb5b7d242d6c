import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { TaskSchema } from '../types/agent-work-events.js';
import { createPlan, PlanError, type PlanLimits, type TaskPlan } from './plan-graph.js';
import { planMarkdown } from './plan-markdown.js';

/** Where the plan lives, relative to the agent's workspace. */
export const PLAN_FOLDER = 'tasks';
export const PLAN_JSON = 'plan.json';
export const PLAN_MARKDOWN = 'plan.md';

/** A plan file larger than this is not read (a plan at the task cap is far smaller). */
const MAX_PLAN_FILE_BYTES = 4 * 1024 * 1024;

const PlanFileSchema = z.object({ version: z.literal(1), tasks: z.array(TaskSchema) });

/**
 * The workspace's `tasks/` folder, created if missing, as a real path inside the workspace. The agent
 * can change its workspace with commands, so `tasks` may have been made a link (to `/etc`, to a
 * peer's folder): the plan is then refused rather than written where the link leads.
 */
async function planFolder(workspace: string): Promise<string> {
  const root = await realpath(workspace);
  const folder = path.join(root, PLAN_FOLDER);
  await mkdir(folder, { recursive: true });
  const info = await lstat(folder);
  const real = await realpath(folder);
  if (!info.isDirectory() || real !== folder) {
    throw new PlanError(
      `${PLAN_FOLDER}/ in your workspace is not a plain folder (a link or a file): remove it so the plan can be saved there`,
    );
  }
  return folder;
}

/**
 * Writes `data` to `folder/name` through a fresh temporary file (created exclusively, never through
 * a link) renamed over it: a reader or a crash never sees half a plan, and a link planted at either
 * name is replaced, not followed.
 */
async function writeAtomic(folder: string, name: string, data: string): Promise<void> {
  const tmp = path.join(folder, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path.join(folder, name));
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Saves the plan as `tasks/plan.json` (and `tasks/plan.md` when `markdown`). */
export async function savePlan(workspace: string, plan: TaskPlan, markdown: boolean): Promise<void> {
  const folder = await planFolder(workspace);
  await writeAtomic(folder, PLAN_JSON, `${JSON.stringify({ version: 1, tasks: plan.tasks }, null, 2)}\n`);
  if (markdown) await writeAtomic(folder, PLAN_MARKDOWN, planMarkdown(plan));
}

/**
 * The plan saved in `folder/tasks/plan.json` (a previous turn's workspace), checked as a new plan
 * would be (ids, texts, dependencies, no cycle, the task cap), or null when there is none. A file
 * that is not a plan is a one-line error.
 */
export async function loadPlan(folder: string, limits: PlanLimits): Promise<TaskPlan | null> {
  const file = path.join(folder, PLAN_FOLDER, PLAN_JSON);
  let text: string;
  try {
    const info = await lstat(file);
    if (!info.isFile()) throw new PlanError(`${file} is not a regular file`);
    if (info.size > MAX_PLAN_FILE_BYTES) throw new PlanError(`${file} is larger than a plan can be`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: z.infer<typeof PlanFileSchema>;
  try {
    parsed = PlanFileSchema.parse(JSON.parse(text));
  } catch {
    throw new PlanError(`${file} is not a task plan massgen wrote (expected {"version":1,"tasks":[…]})`);
  }
  const plan = createPlan(parsed.tasks, limits);
  // createPlan starts every task pending: the saved statuses and notes come back on top.
  return {
    tasks: plan.tasks.map((task, index) => ({
      ...task,
      status: parsed.tasks[index]!.status,
      notes: parsed.tasks[index]!.notes,
    })),
  };
}
