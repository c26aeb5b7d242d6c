import type { ConfigEnv } from './interpolate-env.js';
import type { MassGenConfig } from './schema.js';

/** `${NAME` at the start of every reference the text may make (`${NAME}`, `${NAME:-default}`). */
const REFERENCED_NAME = /\$\{([A-Za-z_][A-Za-z0-9_]*)/g;

/** Config files remembered at once; beyond this the longest-remembered one is forgotten. */
const MAX_FILES = 32;

/**
 * The last valid config read from each file, for a process that reads the same file again and again
 * (`massgen serve` reads its config for every request: parsing and validating it was the largest part
 * of the time a request spends outside its run). A config is reused only when everything it was made
 * from is the same: the file's text, its format, the working directory and the value of every
 * variable the text names. The file is still read each time, so an edit takes effect on the next read.
 * Configs are deeply frozen, so sharing one between runs shares nothing a run can change.
 */
export class ConfigFileMemo {
  private readonly entries = new Map<string, { made: string; config: MassGenConfig }>();

  /** What `config` is made from: equal strings, equal configs. */
  static recipe(text: string, format: string, cwd: string, env: ConfigEnv): string {
    const names = new Set(Array.from(text.matchAll(REFERENCED_NAME), (match) => match[1] ?? ''));
    const values = [...names].map((name) => [name, env[name] ?? null]);
    return `${JSON.stringify([format, cwd, values])}\n${text}`;
  }

  /** The config remembered for `file`, when it was made from `recipe`. */
  get(file: string, recipe: string): MassGenConfig | undefined {
    const entry = this.entries.get(file);
    return entry?.made === recipe ? entry.config : undefined;
  }

  set(file: string, recipe: string, config: MassGenConfig): void {
    this.entries.delete(file);
    this.entries.set(file, { made: recipe, config });
    if (this.entries.size > MAX_FILES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
