import type * as AzureSdk from '@ai-sdk/azure';
import { lazyBackend } from '../lazy-backend.js';
import type { BackendFactory } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { createLanguageModelBackend } from '../ai-sdk/language-model-backend.js';
import { CLOUD_CAPABILITIES, settingsCallOptions } from '../ai-sdk/settings-options.js';
import {
  providerHeaders,
  responsesProviderOptions,
  responsesProviderTools,
} from '../openai/responses-options.js';
import { azureEndpoint } from './azure-base-url.js';
import { mediaGate, OPENAI_RESPONSES_FORMATS, openAIMediaIn } from '../media-input.js';

/** `@ai-sdk/azure`, loaded by the first call of a azure-openai agent. */
let azureSdk: typeof AzureSdk | undefined;

const TYPE = 'azure_openai';

/**
 * Azure OpenAI through its Responses API (the v1 API), authenticated with the `api-key` header.
 *
 * - `base_url` (required) is the resource endpoint: `https://<resource>.openai.azure.com` (as the
 *   portal shows it), `…/openai` or `…/openai/v1` all reach `…/openai/v1/responses`; another host (an
 *   API Management gateway) is used as written, with `/responses` appended.
 * - `model` is the **deployment name**; it is sent as the request's `model`.
 * - `provider_options.apiVersion` (or an `?api-version=` on `base_url`) sets the `api-version` query
 *   parameter the SDK adds for `…/openai` endpoints (default `v1`); the rest of `provider_options` and
 *   `features` map exactly as for the `openai` backend (web search, code interpreter, reasoning).
 */
export const azureOpenAIBackend: BackendFactory = {
  type: TYPE,
  description:
    'Azure OpenAI Responses API (model = deployment name; base_url = https://<resource>.openai.azure.com)',
  capabilities: CLOUD_CAPABILITIES,
  apiKeyEnvs: () => ['AZURE_OPENAI_API_KEY'],
  // Every resource has its own endpoint: there is nothing sensible to default to.
  defaultBaseUrl: () => undefined,
  // A deployment serves one of OpenAI's models; its name often is (or contains) the model's.
  mediaIn: openAIMediaIn,
  create(settings) {
    if (settings.baseUrl === undefined || settings.baseUrl.trim() === '') {
      throw new ConfigError(`${TYPE}: base_url is required (your resource endpoint)`, {
        hint: 'Set base_url: https://<resource>.openai.azure.com in the agent backend.',
      });
    }
    let endpoint: ReturnType<typeof azureEndpoint>;
    try {
      endpoint = azureEndpoint(settings.baseUrl);
    } catch (error) {
      throw new ConfigError(`${TYPE}: base_url is not a URL: ${settings.baseUrl}`, { cause: error });
    }
    return lazyBackend(TYPE, settings.model, async () => {
      azureSdk ??= await import('@ai-sdk/azure');
      const { apiVersion: optionVersion, ...providerOptions } = settings.providerOptions;
      const apiVersion = typeof optionVersion === 'string' ? optionVersion : endpoint.apiVersion;
      const headers = providerHeaders('api-key', settings.apiKey, settings.headers);
      const provider = azureSdk!.createAzure({
        baseURL: endpoint.baseURL,
        // Never undefined: the SDK would then read AZURE_API_KEY from the environment itself.
        apiKey: settings.apiKey ?? '',
        ...(headers === undefined ? {} : { headers }),
        ...(apiVersion === undefined ? {} : { apiVersion }),
      });
      return createLanguageModelBackend({
        type: TYPE,
        modelId: settings.model,
        model: provider.responses(settings.model),
        // The SDK reads Azure's Responses options under `azure`.
        providerName: 'azure',
        baseUrl: endpoint.baseURL,
        providerOptions: responsesProviderOptions(settings.features, providerOptions),
        providerTools: responsesProviderTools(settings.features, provider.tools),
        media: { gate: mediaGate(openAIMediaIn(settings), OPENAI_RESPONSES_FORMATS) },
        ...settingsCallOptions(settings),
      });
    });
  },
};
