import type { BackendFactory, BackendSettings } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { mediaGate, NO_MEDIA_IN } from '../media-input.js';
import { DEMO_PERSONAS } from './demo-answers.js';
import { createDemoModel } from './demo-model.js';
import { sceneOf } from './demo-scene.js';

export { SCRIPTED_NOTE } from './demo-script.js';

/** The `model:` names of the scripted agents. */
export const DEMO_MODELS: readonly string[] = DEMO_PERSONAS.map((persona) => `scripted-${persona}`);

/** `provider_options.pace`: a number ≥ 0 (1 by default: watchable; 0: no pauses). */
function paceOf(settings: BackendSettings): number {
  const pace = settings.providerOptions['pace'];
  if (pace === undefined) return 1;
  if (typeof pace === 'number' && Number.isFinite(pace) && pace >= 0) return pace;
  throw new ConfigError(`provider_options.pace must be a number ≥ 0, not ${JSON.stringify(pace)}`, {
    hint: 'pace: 1 types at a watchable speed, pace: 0 answers at once',
  });
}

/**
 * `type: demo` — a scripted team in this process, for trying massgen without a key: `scripted-ada`
 * answers briefly and right, `scripted-grace` thoroughly and revises once, `scripted-linus` at once and
 * often wrong; everyone votes for the best answer in view, and the winner presents. They know arithmetic
 * on two numbers and a few facts. Real coordination runs around them (answers, an update, a vote reset,
 * votes, the presentation), through the same AI SDK adapter as every provider; only the model is a
 * script. Every final answer they write says so.
 */
export const demoBackend: BackendFactory = {
  type: 'demo',
  description: `A scripted team for trying massgen without a key: no model is called (model: ${DEMO_MODELS.join(', ')})`,
  capabilities: {
    streaming: true,
    tools: true,
    webSearch: false,
    codeExecution: false,
    reasoning: false,
    imagesIn: false,
  },
  models: DEMO_MODELS,
  apiKeyEnvs: () => [],
  defaultBaseUrl: () => undefined,
  keyOptional: () => true,
  mediaIn: NO_MEDIA_IN,
  notice: {
    code: 'scripted_demo',
    message: (agents) =>
      `${agents.join(', ')}: scripted demo agents (backend type demo): no model is called, every move comes from massgen's built-in script`,
  },
  create(settings) {
    const persona = DEMO_PERSONAS.find((p) => settings.model === `scripted-${p}`);
    if (!persona)
      throw new ConfigError(`the demo backend has no model "${settings.model}"`, {
        hint: `use one of ${DEMO_MODELS.join(', ')}`,
      });
    const scene = sceneOf(settings.team);
    const member = scene.join(persona);
    return createLanguageModelBackend({
      type: 'demo',
      modelId: settings.model,
      model: createDemoModel({ modelId: settings.model, persona, scene, member, pace: paceOf(settings) }),
      providerName: 'demo',
      // Media never reaches the script: a part that arrives anyway becomes a line naming it.
      media: { gate: mediaGate(NO_MEDIA_IN(), {}) },
    });
  },
};
