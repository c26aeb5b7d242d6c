import type { BackendCapabilities, BackendSettings } from '../../types/backend.js';
import type { LanguageModelBackendOptions } from './language-model-backend.js';

/**
 * What every cloud provider family (Claude, OpenAI, Azure OpenAI, Gemini) can do through its AI SDK
 * provider; a family that differs spreads this and overrides the difference.
 */
export const CLOUD_CAPABILITIES: BackendCapabilities = Object.freeze({
  streaming: true,
  tools: true,
  webSearch: true,
  codeExecution: true,
  reasoning: true,
  imagesIn: true,
});

/**
 * The call options every AI SDK backend takes straight from an agent's settings: sampling limits, and
 * the API key as a secret to scrub from error messages. Absent settings stay absent (the provider's
 * default applies), which `exactOptionalPropertyTypes` needs spelled out.
 */
export function settingsCallOptions(
  settings: Pick<BackendSettings, 'temperature' | 'maxTokens' | 'apiKey'>,
): Pick<LanguageModelBackendOptions, 'temperature' | 'maxTokens' | 'secrets'> {
  return {
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.maxTokens === undefined ? {} : { maxTokens: settings.maxTokens }),
    ...(settings.apiKey === undefined ? {} : { secrets: [settings.apiKey] }),
  };
}
