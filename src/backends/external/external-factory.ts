import type { BackendCapabilities, BackendFactory } from '../../types/backend.js';

/** What every adapter for an agent from another framework shares: no key, no URL, its own model. */
export const externalAgentFactory = (
  capabilities: Partial<BackendCapabilities> = {},
): Pick<BackendFactory, 'capabilities' | 'apiKeyEnvs' | 'defaultBaseUrl' | 'keyOptional' | 'external'> => ({
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
  external: true,
});
