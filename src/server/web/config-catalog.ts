import { readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  anyApiKeySet,
  configPrerequisites,
  configReadiness,
  examplesDir,
  parseConfigText,
  unsetConfigVariables,
  userConfigFile,
  type ConfigChoice,
  type ConfigReadiness,
  type Env,
  type MassGenConfig,
} from '../../app/index.js';
import type { WebConfigChoice } from '../../types/web-api.js';
import { configNeeds, ServerProbes } from './config-needs.js';

/** A config the page may offer, whether it can run here, and what it needs that is not there. */
export type ConfigListing = WebConfigChoice & ConfigReadiness;

/** A choice as the catalog lists it: the folder's own, the user's (`massgen --setup`), an example. */
export type WebChoice = Omit<ConfigChoice, 'source'> & { source: WebConfigChoice['source'] };

/** How long a listing is served before it is refreshed (in the background). */
const MAX_AGE_MS = 1_000;
const YAML = /\.ya?ml$/i;
/** The team `massgen "question"` runs with no config and no key: the same two local agents. */
export const LOCAL_DEFAULT_REF = '@examples/local/local_pair';
const PROJECT_DEFAULT = '.massgen/config.yaml';

interface Known {
  mtimeMs: number;
  size: number;
  readiness: ConfigReadiness;
  /** The parsed config, when it parses: what it needs on this machine is asked at each listing. */
  config: MassGenConfig | null;
}

/** Options of {@link ConfigCatalog}. */
export interface ConfigCatalogOptions {
  cwd: string;
  env: Env;
  /** `--config`. */
  flag?: string;
  /** Which of the folder's own configs may be listed (by absolute path). */
  project?: (file: string) => boolean;
  /** The home folder, for the user-level config (default: the OS's). */
  home?: string;
  probes?: ServerProbes;
}

/**
 * The configs `massgen --web` offers (`--config`, YAML files in the working directory and `.massgen/`,
 * the user-level config `massgen --setup` writes, the bundled examples) with `runnable`, `missing` and
 * `needs` for each, and the one the CLI would use here marked `default` — listed without blocking the
 * event loop, like serve's model list: files are read asynchronously, each config is parsed again only
 * when it changed (the bundled examples once), local model files are looked for and local servers
 * probed (bounded, answers kept briefly) at each listing, and a listing older than a second is refreshed
 * in the background while the last one answers. One listing at a time, however many requests ask.
 */
export class ConfigCatalog {
  private listing: ConfigListing[] | null = null;
  private listedAt = 0;
  private building: Promise<ConfigListing[]> | null = null;
  private examples: Promise<string[]> | null = null;
  private readonly known = new Map<string, Known>();
  private readonly probes: ServerProbes;

  constructor(private readonly options: ConfigCatalogOptions) {
    this.probes = options.probes ?? new ServerProbes();
  }

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
    const { cwd, env, flag } = this.options;
    const choices: (WebChoice & { file: string; example: boolean })[] = [];
    const add = (choice: WebChoice, file: string, example = false) => {
      if (!choices.some((c) => c.ref === choice.ref)) choices.push({ ...choice, file, example });
    };
    if (flag) add({ ref: flag, label: `${flag} (--config)`, source: 'flag' }, path.resolve(cwd, flag));
    for (const dir of ['.', '.massgen']) {
      const names = await readdir(path.join(cwd, dir)).catch(() => [] as string[]);
      for (const name of names.filter((n) => YAML.test(n)).sort()) {
        const ref = dir === '.' ? name : `${dir}/${name}`;
        if (this.project(path.resolve(cwd, ref)))
          add({ ref, label: ref, source: 'project' }, path.resolve(cwd, ref));
      }
    }
    const user = await userChoice(env, this.options.home);
    if (user) add(user, user.ref);
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
    const defaultRef = this.defaultRef(choices);
    // Every file read and parsed first: a probe's time limit then runs while this process is free to
    // receive the answer, not while it parses the next config.
    const known = await Promise.all(choices.map(({ file, example }) => this.read(file, example)));
    const listing = await Promise.all(
      choices.map(async ({ file: _file, example: _example, ...choice }, index): Promise<ConfigListing> => {
        const { readiness, config } = known[index]!;
        const needs = config ? await configNeeds(await configPrerequisites(config, env), this.probes) : [];
        return {
          ...choice,
          ...readiness,
          runnable: readiness.runnable && needs.length === 0,
          ...(needs.length > 0 ? { needs } : {}),
          ...(choice.ref === defaultRef ? { default: true } : {}),
        };
      }),
    );
    this.listing = listing;
    this.listedAt = performance.now();
    return listing;
  }

  private project(file: string): boolean {
    return (this.options.project ?? (() => true))(file);
  }

  /**
   * The config the CLI would use here without `--config`: `--config` itself, else the folder's
   * `.massgen/config.yaml` (once trusted, as the picker lists it), else the user's (`massgen --setup`),
   * else — with no API key set — the two local agents. Null when none applies (a key is set but no
   * team is configured: the CLI then asks for one too).
   */
  private defaultRef(choices: readonly WebChoice[]): string | null {
    const has = (ref: string) => choices.some((c) => c.ref === ref);
    if (this.options.flag) return this.options.flag;
    if (has(PROJECT_DEFAULT)) return PROJECT_DEFAULT;
    const user = choices.find((c) => c.source === 'user');
    if (user) return user.ref;
    return !anyApiKeySet(this.options.env) && has(LOCAL_DEFAULT_REF) ? LOCAL_DEFAULT_REF : null;
  }

  /** A file's readiness and parsed config, read again only when the file changed (an example: never). */
  private async read(file: string, example: boolean): Promise<Known> {
    const known = this.known.get(file);
    if (known && example) return known;
    const info = await stat(file).catch(() => null);
    if (!info)
      return {
        mtimeMs: 0,
        size: 0,
        readiness: { runnable: false, missing: [], error: `${file} does not exist` },
        config: null,
      };
    if (known && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
    let readiness: ConfigReadiness;
    let config: MassGenConfig | null = null;
    try {
      const text = await readFile(file, 'utf8');
      const options = { source: file, env: this.options.env, cwd: this.options.cwd };
      readiness = await configReadiness(text, options);
      if (!readiness.error && unsetConfigVariables(text, this.options.env).length === 0)
        config = parseConfigText(text, options);
    } catch (error) {
      readiness = {
        runnable: false,
        missing: [],
        error: error instanceof Error ? error.message : String(error),
      };
    }
    const entry = { mtimeMs: info.mtimeMs, size: info.size, readiness, config };
    this.known.set(file, entry);
    return entry;
  }
}

/** The user-level config (`massgen --setup` writes it), when there is one: offered by its path. */
async function userChoice(env: Env, home = os.homedir()): Promise<WebChoice | null> {
  const file = userConfigFile(env, home);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return null;
  const shown = file.startsWith(`${home}${path.sep}`) ? `~${file.slice(home.length)}` : file;
  return { ref: file, label: `${shown} (massgen --setup)`, source: 'user' };
}

/** The bundled examples' files, relative to the examples folder, sorted (names only: nothing opened). */
async function exampleFiles(): Promise<string[]> {
  const files = await readdir(examplesDir(), { recursive: true, encoding: 'utf8' });
  return files.filter((f) => YAML.test(f)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
