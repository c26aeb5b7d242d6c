import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';

/**
 * One `SKILL.md` (Anthropic's Agent Skills format): YAML front matter between `---` lines with `name`
 * and `description` (optional fields such as `license`, `allowed-tools`, `metadata` are accepted and
 * not used), then a Markdown body. The folder holding it is the skill: its other files (scripts, references) come along.
 */
export interface Skill {
  name: string;
  description: string;
  /** The Markdown after the front matter. */
  body: string;
  /** The skill's folder (absolute). */
  dir: string;
  /** The configured folder it was found in. */
  source: string;
}

/** One problem with a skill, where it is (1-based line; 1 when the whole file is at fault). */
export interface SkillProblem {
  file: string;
  line: number;
  message: string;
}

/** `file:line: message`, as compilers print it. */
export const formatSkillProblem = (p: SkillProblem): string => `${p.file}:${p.line}: ${p.message}`;

/** Lowercase letters, digits and single hyphens, as the Agent Skills format asks. */
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

/** Reads and checks `dir/SKILL.md`: the skill, or every problem found (never both empty). */
export function readSkill(
  dir: string,
  source = path.dirname(dir),
): { skill?: Skill; problems: SkillProblem[] } {
  const file = path.join(dir, 'SKILL.md');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problems: [{ file, line: 1, message: `cannot read: ${(error as Error).message}` }] };
  }
  return parseSkill(text, { file, dir, source });
}

/** Parses a `SKILL.md`'s text; `file` names it in problems, `dir` is its folder (its name must match). */
export function parseSkill(
  text: string,
  where: { file: string; dir: string; source: string },
): { skill?: Skill; problems: SkillProblem[] } {
  const { file } = where;
  const problems: SkillProblem[] = [];
  const problem = (line: number, message: string) => problems.push({ file, line, message });
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') {
    problem(1, 'must start with YAML front matter: a "---" line, name: and description:, then "---"');
    return { problems };
  }
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) {
    problem(1, 'the front matter is not closed: add a "---" line after it');
    return { problems };
  }
  const counter = new LineCounter();
  const doc = parseDocument(lines.slice(1, end).join('\n'), { lineCounter: counter, prettyErrors: false });
  // Front matter starts on line 2 of the file.
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? 1 : counter.linePos(offset).line + 1;
  for (const error of doc.errors)
    problem(lineOf(error.pos[0]), `front matter: ${error.message.split('\n')[0]}`);
  if (doc.errors.length > 0) return { problems };
  if (!isMap(doc.contents)) {
    problem(2, 'the front matter must be a YAML mapping with name: and description:');
    return { problems };
  }
  const fields = new Map<string, { value: unknown; line: number }>();
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const line = lineOf(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
    const value = isScalar(pair.value) ? pair.value.value : pair.value === null ? null : doc.get(key);
    fields.set(key, { value, line });
  }
  const name = fields.get('name');
  const description = fields.get('description');
  if (!name) problem(2, 'name: is missing');
  else if (typeof name.value !== 'string' || !NAME.test(name.value) || name.value.length > MAX_NAME)
    problem(
      name.line,
      `name: ${JSON.stringify(name.value)} must be 1-${MAX_NAME} lowercase letters, digits and hyphens (e.g. pdf-tools)`,
    );
  else if (name.value !== path.basename(where.dir))
    problem(name.line, `name: "${name.value}" must match its folder's name "${path.basename(where.dir)}"`);
  if (!description) problem(2, 'description: is missing (say what the skill does and when to use it)');
  else if (typeof description.value !== 'string' || description.value.trim() === '')
    problem(description.line, 'description: must be non-empty text');
  else if (description.value.length > MAX_DESCRIPTION)
    problem(
      description.line,
      `description: is ${description.value.length} characters; at most ${MAX_DESCRIPTION}`,
    );
  const body = lines
    .slice(end + 1)
    .join('\n')
    .trim();
  if (body === '') problem(end + 2, 'the body is empty: write the instructions after the front matter');
  if (problems.length > 0) return { problems };
  return {
    skill: {
      name: name!.value as string,
      description: (description!.value as string).trim(),
      body,
      dir: where.dir,
      source: where.source,
    },
    problems,
  };
}
