/**
 * `massgen/ai-sdk`: a team of agents as an AI SDK model, for `generateText`, `streamText` and
 * anything else that takes a `LanguageModelV3`.
 *
 * @example
 * ```ts
 * import { generateText } from 'ai';
 * import { createMassGen } from 'massgen/ai-sdk';
 *
 * const mg = createMassGen({ config: 'team.yaml' });
 * const { text, reasoningText } = await generateText({ model: mg('massgen'), prompt: 'Why is the sky blue?' });
 * ```
 * @packageDocumentation
 */
import { NoSuchModelError, type LanguageModelV3 } from '@ai-sdk/provider';
import { isExampleRef, resolveExampleRef, type MassGenOptions } from '../app/index.js';
import { MassGenLanguageModel, type MassGenRunSettings } from './massgen-language-model.js';

export { MassGenLanguageModel, MassGenRunError, type MassGenRunSettings } from './massgen-language-model.js';

/** Settings of {@link createMassGen}: the team, and how its runs are made. */
export interface MassGenProviderSettings extends MassGenRunSettings {
  /** The team `mg('massgen')` runs: a config file path, `@examples/NAME`, or a config object. */
  config: MassGenOptions['config'];
  /** More teams by model id: `mg('reviewers')` runs `models.reviewers`. */
  models?: Record<string, MassGenOptions['config']>;
}

/** The provider: call it with a model id, as with any AI SDK provider. */
export interface MassGenProvider {
  (modelId?: string): LanguageModelV3;
  languageModel(modelId: string): LanguageModelV3;
}

const configOf = (config: MassGenOptions['config']) =>
  typeof config === 'string' && isExampleRef(config) ? resolveExampleRef(config) : config;

/**
 * Creates the provider. Model ids: `massgen` (the `config`), a key of `models`, or
 * `massgen/<example>` for a bundled example such as `massgen/basic/three_agents`.
 */
export function createMassGen(settings: MassGenProviderSettings): MassGenProvider {
  const { config, models = {}, ...run } = settings;
  const languageModel = (modelId: string): LanguageModelV3 => {
    let chosen: MassGenOptions['config'] | undefined;
    if (modelId === 'massgen') chosen = config;
    else if (Object.hasOwn(models, modelId)) chosen = models[modelId];
    else if (modelId.startsWith('massgen/')) chosen = `@examples/${modelId.slice('massgen/'.length)}`;
    if (chosen === undefined) throw new NoSuchModelError({ modelId, modelType: 'languageModel' });
    return new MassGenLanguageModel(modelId, { ...run, config: configOf(chosen) });
  };
  const provider = (modelId = 'massgen') => languageModel(modelId);
  provider.languageModel = languageModel;
  return provider;
}
