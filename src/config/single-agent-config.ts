import { parseConfig } from './parse-config.js';
import type { MassGenConfig } from './schema.js';

export interface SingleAgentOptions {
  backendType: string;
  model: string;
  baseUrl?: string;
  /** A preset of the backend (e.g. `zai` for `chatcompletion`). */
  provider?: string;
  systemMessage?: string;
  apiKey?: string;
}

/**
 * Flag values are literal text: `${` must not be read as a variable reference. (A replacer function,
 * because in a replacement string `$$` itself means a single `$`.)
 */
const literal = (text: string): string => text.replaceAll('${', () => '$${');

/**
 * The config the CLI builds from `--backend/--model` (no config file): one agent, every default
 * filled in. It goes through {@link parseConfig}, so it is validated and frozen like a file config.
 *
 * @throws {ConfigValidationError} for an invalid value, e.g. a malformed base URL.
 */
export function singleAgentConfig(options: SingleAgentOptions): MassGenConfig {
  const backend: Record<string, string> = {
    type: literal(options.backendType),
    model: literal(options.model),
  };
  if (options.baseUrl !== undefined) backend.base_url = literal(options.baseUrl);
  if (options.provider !== undefined) backend.provider = literal(options.provider);
  if (options.apiKey !== undefined) backend.api_key = literal(options.apiKey);
  const agent: Record<string, unknown> = { backend };
  if (options.systemMessage !== undefined) agent.system_message = literal(options.systemMessage);
  return parseConfig({ agent }, { env: {}, source: 'command line' });
}
