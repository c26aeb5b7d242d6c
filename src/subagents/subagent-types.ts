import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { BaseAgentConfigSchema } from '../config/schema.js';
import { describeError } from '../types/errors.js';
import type { SubagentTypeInfo } from '../types/subagent-launch.js';
import { packagePath } from '../util/package-root.js';

/**
 * A typed subagent (`SUBAGENT.md`): YAML front matter with `name`, `description` and optionally a
 * `backend` (the team: one agent on that backend), then a body that becomes the subagent's system
 * message. The project's `.agent/subagent_types/<name>/SUBAGENT.md` win over the shipped defaults.
 */
export interface SubagentType extends SubagentTypeInfo {
  /** Where it was read from, for messages. */
  file: string;
}

const FrontMatterSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
  description: z.string().min(1).max(1000),
  backend: z.record(z.string(), z.unknown()).optional(),
});

/** The shipped defaults (researcher, critic, builder), in the package's `subagent_types/`. */
export const SHIPPED_TYPES_DIR = packagePath('subagent_types');

/** Parses one `SUBAGENT.md`; throws an Error naming the file and the problem. */
export function parseSubagentFile(file: string, text: string): SubagentType {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match)
    throw new Error(`${file}: must start with YAML front matter (name:, description:) between "---" lines`);
  let front: unknown;
  try {
    front = parseYaml(match[1]!);
  } catch (error) {
    throw new Error(`${file}: front matter: ${describeError(error).split('\n')[0]}`);
  }
  const parsed = FrontMatterSchema.safeParse(front);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: front matter ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (parsed.data.backend) {
    const agent = BaseAgentConfigSchema.safeParse({ backend: parsed.data.backend });
    if (!agent.success) {
      const issue = agent.error.issues[0]!;
      throw new Error(`${file}: backend.${issue.path.slice(1).join('.')}: ${issue.message}`);
    }
  }
  const body = match[2]!.trim();
  if (body === '')
    throw new Error(`${file}: the body is empty: write the subagent's instructions after the front matter`);
  return {
    name: parsed.data.name,
    description: parsed.data.description,
    systemMessage: body,
    backend: parsed.data.backend ?? null,
    file,
  };
}

/** The types in one folder (`<dir>/<name>/SUBAGENT.md`), by name; a missing folder has none. */
function typesIn(dir: string): SubagentType[] {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
  const out: SubagentType[] = [];
  for (const name of names) {
    const file = path.join(dir, name, 'SUBAGENT.md');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const type = parseSubagentFile(file, text);
    if (type.name !== name) throw new Error(`${file}: name "${type.name}" must match its folder "${name}"`);
    out.push(type);
  }
  return out;
}

/**
 * Every subagent type a run offers: the shipped ones, then the project's `.agent/subagent_types/`
 * (a project type replaces a shipped one of the same name). Throws for a malformed file.
 */
export function loadSubagentTypes(projectDir: string | null): Map<string, SubagentType> {
  const types = new Map<string, SubagentType>();
  const dirs = [
    SHIPPED_TYPES_DIR,
    ...(projectDir ? [path.join(projectDir, '.agent', 'subagent_types')] : []),
  ];
  for (const dir of dirs) for (const type of typesIn(dir)) types.set(type.name, type);
  return types;
}
