import { readdirSync } from 'node:fs';
import path from 'node:path';
import { listExamples } from '../config/examples.js';

/** A config a front end (the web UI, the server) may offer and run. */
export interface ConfigChoice {
  /** What the page sends back (and `massgen serve` maps model ids to): `@examples/NAME` or a path relative to the working directory. */
  ref: string;
  label: string;
  source: 'flag' | 'project' | 'example';
}

/**
 * The configs a front end offers: `--config`, YAML files in the working directory and `.massgen/` that
 * `project` allows (by absolute path; the CLI allows those of a folder the user trusted), the examples.
 */
export function configChoices(
  cwd: string,
  flag?: string,
  project: (file: string) => boolean = () => true,
): ConfigChoice[] {
  const out: ConfigChoice[] = [];
  if (flag) out.push({ ref: flag, label: `${flag} (--config)`, source: 'flag' });
  for (const dir of ['.', '.massgen']) {
    let names: string[] = [];
    try {
      names = readdirSync(path.join(cwd, dir)).filter((n) => /\.ya?ml$/.test(n));
    } catch {
      // No such folder.
    }
    for (const name of names.sort()) {
      const ref = dir === '.' ? name : `${dir}/${name}`;
      if (!project(path.resolve(cwd, ref))) continue;
      if (!out.some((c) => c.ref === ref)) out.push({ ref, label: ref, source: 'project' });
    }
  }
  for (const example of listExamples()) {
    out.push({ ref: `@examples/${example.name}`, label: `@examples/${example.name}`, source: 'example' });
  }
  return out;
}
