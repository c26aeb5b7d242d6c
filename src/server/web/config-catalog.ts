import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  configReadiness,
  examplesDir,
  type ConfigChoice,
  type ConfigReadiness,
  type Env,
} from '../../app/index.js';

/** A config the page may offer, and whether it can run with the keys this server has. */
export interface ConfigListing extends ConfigChoice, ConfigReadiness {}

/** How long a listing is served before it is refreshed (in the background). */
const MAX_AGE_MS = 1_000;
const YAML = /\.ya?ml$/i;

interface Known {
  mtimeMs: number;
  size: number;
  readiness: ConfigReadiness;
}

/**
 * The configs `massgen --web` offers (`--config`, YAML files in the working directory and `.massgen/`,
 * the bundled examples) with `runnable` and `missing` for each — listed without blocking the event
 * loop, like serve's model list: files are read asynchronously, each config is parsed again only when
 * it changed (the bundled examples once), and a listing older than a second is refreshed in the
 * background while the last one answers. One listing at a time, however many requests ask.
 */
export class ConfigCatalog {
  private listing: ConfigListing[] | null = null;
  private listedAt = 0;
  private building: Promise<ConfigListing[]> | null = null;
  private examples: Promise<string[]> | null = null;
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly cwd: string,
    private readonly env: Env,
    private readonly flag?: string,
    /** Which of the folder's own configs may be listed (by absolute path). */
    private readonly project: (file: string) => boolean = () => true,
  ) {}

  /** The current listing (the first call waits for it; later ones never do). */
  async list(): Promise<ConfigListing[]> {
    if (this.listing === null) return this.refresh();
    if (performance.now() - this.listedAt > MAX_AGE_MS) this.refresh().catch(() => undefined);
    return this.listing;
  }

  /** The last listing, if there is one (synchronous, possibly a second old). */
  cached(): readonly ConfigListing[] | null {
    return this.listing;
  }

  refresh(): Promise<ConfigListing[]> {
    this.building ??= this.build().finally(() => {
      this.building = null;
    });
    return this.building;
  }

  private async build(): Promise<ConfigListing[]> {
    const choices: (ConfigChoice & { file: string; example: boolean })[] = [];
    const add = (choice: ConfigChoice, file: string, example = false) => {
      if (!choices.some((c) => c.ref === choice.ref)) choices.push({ ...choice, file, example });
    };
    if (this.flag)
      add(
        { ref: this.flag, label: `${this.flag} (--config)`, source: 'flag' },
        path.resolve(this.cwd, this.flag),
      );
    for (const dir of ['.', '.massgen']) {
      const names = await readdir(path.join(this.cwd, dir)).catch(() => [] as string[]);
      for (const name of names.filter((n) => YAML.test(n)).sort()) {
        const ref = dir === '.' ? name : `${dir}/${name}`;
        if (this.project(path.resolve(this.cwd, ref)))
          add({ ref, label: ref, source: 'project' }, path.resolve(this.cwd, ref));
      }
    }
    this.examples ??= exampleFiles();
    const root = examplesDir();
    for (const file of await this.examples) {
      const name = file.split(path.sep).join('/').replace(YAML, '');
      add(
        { ref: `@examples/${name}`, label: `@examples/${name}`, source: 'example' },
        path.join(root, file),
        true,
      );
    }
    const listing: ConfigListing[] = [];
    for (const { file, example, ...choice } of choices)
      listing.push({ ...choice, ...(await this.readiness(file, example)) });
    this.listing = listing;
    this.listedAt = performance.now();
    return listing;
  }

  /** A file's readiness, parsed again only when the file changed (an example: never). */
  private async readiness(file: string, example: boolean): Promise<ConfigReadiness> {
    const known = this.known.get(file);
    if (known && example) return known.readiness;
    const info = await stat(file).catch(() => null);
    if (!info) return { runnable: false, missing: [], error: `${file} does not exist` };
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known.readiness;
    let readiness: ConfigReadiness;
    try {
      const text = await readFile(file, 'utf8');
      readiness = configReadiness(text, { source: file, env: this.env, cwd: this.cwd });
    } catch (error) {
      readiness = {
        runnable: false,
        missing: [],
        error: error instanceof Error ? error.message : String(error),
      };
    }
    this.known.set(file, { mtimeMs: info.mtimeMs, size: info.size, readiness });
    return readiness;
  }
}

/** The bundled examples' files, relative to the examples folder, sorted (names only: nothing opened). */
async function exampleFiles(): Promise<string[]> {
  const files = await readdir(examplesDir(), { recursive: true, encoding: 'utf8' });
  return files.filter((f) => YAML.test(f)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
