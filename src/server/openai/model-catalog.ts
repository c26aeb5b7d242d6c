import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { configChoices, examplesDir, isExampleRef, resolveExampleRef } from '../../app/index.js';

/** A model id clients may ask for, and the config file it runs. */
export interface ServedModel {
  id: string;
  file: string;
  /** One of the working folder's own configs (offered only while `projectConfigs` allows it). */
  project?: true;
}

/** The config file a ref names: a bundled example (`@examples/…`) or a path from `cwd`. */
export const configFile = (cwd: string, ref: string) =>
  isExampleRef(ref) ? resolveExampleRef(ref) : path.resolve(cwd, ref);

/**
 * The models the server offers: `massgen` (its own config), then `massgen/<name>` for each YAML config
 * in the working directory and `.massgen/` and each bundled example — the configs `massgen --web`
 * offers, and no others.
 */
export function servedModels(
  cwd: string,
  config: string,
  project?: (file: string) => boolean,
): ServedModel[] {
  const models: ServedModel[] = [{ id: 'massgen', file: configFile(cwd, config) }];
  for (const choice of configChoices(cwd, undefined, project)) {
    const name = isExampleRef(choice.ref)
      ? choice.ref.replace(/^@examples\//, '')
      : choice.ref.replace(/\.ya?ml$/, '');
    const id = `massgen/${name}`;
    if (!models.some((m) => m.id === id)) models.push({ id, file: configFile(cwd, choice.ref) });
  }
  return models;
}

/** How long a listing of the configs is served before it is refreshed (in the background). */
const MODELS_MAX_AGE_MS = 1_000;

/**
 * The models offered, listed without blocking: the bundled examples once (they do not change), the
 * working directory's configs again when the list is older than {@link MODELS_MAX_AGE_MS} — in the
 * background, while the last list answers. One listing at a time, however many requests ask.
 */
export class ModelCatalog {
  private models: ServedModel[] | null = null;
  private listedAt = 0;
  private listing: Promise<ServedModel[]> | null = null;
  private examples: Promise<ServedModel[]> | null = null;

  constructor(
    private readonly cwd: string,
    private readonly main: ServedModel,
    private readonly onListed?: (models: readonly ServedModel[]) => void,
    private readonly project: (file: string) => boolean = () => true,
  ) {}

  /** The current list (the first call waits for it; later ones never do). */
  async list(): Promise<ServedModel[]> {
    if (this.models === null) return this.refresh();
    if (performance.now() - this.listedAt > MODELS_MAX_AGE_MS) this.refresh().catch(() => undefined);
    return this.models;
  }

  /** The model `id`; a name not in the list is looked for once more (a config added a moment ago). */
  async find(id: string): Promise<ServedModel | undefined> {
    const model =
      (await this.list()).find((m) => m.id === id) ?? (await this.refresh()).find((m) => m.id === id);
    // A folder's config is asked about again: the list may be a second old, the file changed since.
    return model && (model.project !== true || this.project(model.file)) ? model : undefined;
  }

  refresh(): Promise<ServedModel[]> {
    this.listing ??= this.build().finally(() => {
      this.listing = null;
    });
    return this.listing;
  }

  private async build(): Promise<ServedModel[]> {
    const models = [this.main];
    const add = (id: string, file: string, project?: true) => {
      if (!models.some((m) => m.id === id)) models.push({ id, file, ...(project ? { project } : {}) });
    };
    for (const dir of ['.', '.massgen']) {
      const names = await readdir(path.join(this.cwd, dir)).catch(() => [] as string[]);
      for (const name of names.filter((n) => /\.ya?ml$/.test(n)).sort()) {
        const ref = dir === '.' ? name : `${dir}/${name}`;
        const file = path.resolve(this.cwd, ref);
        if (this.project(file)) add(`massgen/${ref.replace(/\.ya?ml$/, '')}`, file, true);
      }
    }
    this.examples ??= listExampleModels();
    for (const example of await this.examples) add(example.id, example.file);
    this.models = models;
    this.listedAt = performance.now();
    this.onListed?.(models);
    return models;
  }
}

/** `massgen/<name>` for each bundled example, read from the folder without opening the files. */
async function listExampleModels(): Promise<ServedModel[]> {
  const root = examplesDir();
  const files = await readdir(root, { recursive: true, encoding: 'utf8' });
  return files
    .filter((file) => ['.yaml', '.yml'].includes(path.extname(file).toLowerCase()))
    .map((file) => {
      const posix = file.split(path.sep).join('/');
      return {
        id: `massgen/${posix.slice(0, posix.length - path.extname(posix).length)}`,
        file: path.join(root, file),
      };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
