import { EXAMPLE_PREFIX, exampleForCopy, listExamples, type ExampleInfo } from '../app/essentials.js';
import type { Write } from '../app/plain-display.js';
import { inertText, inertWriter } from '../util/terminal-text.js';

const WIDTH = 100;

/** Words of `text` on lines of at most `width` characters, each line starting with `indent`. */
function wrap(text: string, indent: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

/**
 * `massgen --list-examples`: every bundled example config, grouped by folder, with its description
 * (the file's leading comment).
 */
export function printExampleList(rawWrite: Write, examples: readonly ExampleInfo[] = listExamples()): void {
  // Names and descriptions are read from files: shown inert like any file's text.
  const write = inertWriter(rawWrite);
  write(
    `Bundled example configs — run one with --config ${EXAMPLE_PREFIX}NAME, copy one with --example NAME:\n`,
  );
  const groups = new Map<string, ExampleInfo[]>();
  for (const example of examples) {
    const slash = example.name.lastIndexOf('/');
    const folder = slash < 0 ? '' : example.name.slice(0, slash);
    groups.set(folder, [...(groups.get(folder) ?? []), example]);
  }
  for (const [folder, items] of groups) {
    write(`\n${folder === '' ? '(top level)' : `${folder}/`}\n`);
    for (const example of items) {
      write(`  ${example.name}\n`);
      for (const line of wrap(example.description || '(no description)', '      ', WIDTH)) write(`${line}\n`);
    }
  }
  write(`\ne.g. massgen --config ${EXAMPLE_PREFIX}basic/three_agents "your question"\n`);
  write('     massgen --example basic/three_agents > team.yaml\n');
}

/**
 * `massgen --example NAME`: the example's YAML, comments and all, so `massgen --example
 * basic/three_agents > team.yaml` gives an editable copy that validates where it is written (files it
 * refers to, such as custom tool modules, are pointed at the installed examples). NAME may carry
 * `@examples/` and `.yaml`.
 *
 * @throws {ConfigError} for an unknown name (its message suggests the closest one).
 */
export function printExample(write: Write, name: string): void {
  write(inertText(exampleForCopy(name)));
}
