/**
 * MassGen's example configs that turn on task planning (../shared/massgen-configs) are honoured: each
 * loads here with the planning keys taken as they are — no "task planning tools are not supported"
 * note — and its agents get the planning tools (docs/task-plans.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configNotes, loadConfigFile } from '../../src/config/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Beside the checkout (../shared), or beside the folder of worktrees a checkout may be in.
const corpus =
  [path.resolve(root, '..'), path.resolve(root, '..', '..')]
    .map((dir) => path.join(dir, 'shared', 'massgen-configs', 'massgen', 'configs'))
    .find((dir) => existsSync(dir)) ?? path.resolve(root, '..', 'shared', 'massgen-configs');
const present = existsSync(corpus);

function configFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? configFiles(file) : name.endsWith('.yaml') ? [file] : [];
  });
}

const planning = present
  ? configFiles(corpus).filter((file) => readFileSync(file, 'utf8').includes('enable_agent_task_planning'))
  : [];

describe("MassGen's task planning configs", () => {
  it.skipIf(!present)(
    `all load with task planning on and no warning about it${present ? '' : ` (skipped: MassGen's configs are not at ${corpus})`}`,
    () => {
      expect(planning.length).toBeGreaterThanOrEqual(7);
      for (const file of planning) {
        const name = path.relative(corpus, file);
        const config = loadConfigFile(file, {
          env: { OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' },
          cwd: path.dirname(file),
        });
        const notes = configNotes(config).map((n) => n.message);
        expect(
          notes.filter((n) => /task planning|task_planning|max_tasks_per_plan/.test(n)),
          name,
        ).toEqual([]);
        expect(config.orchestrator.coordination.enable_agent_task_planning, name).toBe(true);
      }
    },
  );
});
