import type { BackendCapabilities, BackendFactory, BackendSettings } from '../../types/backend.js';
import { ConfigError } from '../../types/errors.js';
import { NO_MEDIA_IN } from '../media-input.js';

/** What every adapter for an agent from another framework shares: no key, no URL, its own model. */
export const externalAgentFactory = (
  capabilities: Partial<BackendCapabilities> = {},
): Pick<
  BackendFactory,
  'capabilities' | 'apiKeyEnvs' | 'defaultBaseUrl' | 'keyOptional' | 'external' | 'mediaIn'
> => ({
  capabilities: {
    streaming: true,
    tools: true,
    webSearch: false,
    codeExecution: false,
    reasoning: false,
    imagesIn: false,
    ...capabilities,
  },
  apiKeyEnvs: () => [],
  defaultBaseUrl: () => undefined,
  keyOptional: () => true,
  // The agent's own model may see media, but massgen hands it text only.
  mediaIn: NO_MEDIA_IN,
  external: true,
});

/** The config error for an export that is not what the adapter drives (`what`: "an AI SDK agent (…)"). */
export const notAnAgent = (settings: BackendSettings, what: string, hint: string): ConfigError =>
  new ConfigError(
    `the export "${settings.external?.export ?? 'default'}" of ${settings.external?.module ?? 'the module'} is not ${what}`,
    { hint },
  );
