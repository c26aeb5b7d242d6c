import type { JSONValue, ToolSet } from 'ai';
import type { BackendFeatures } from '../../types/backend.js';

/**
 * The built-in tool factories of an AI SDK Responses provider (`createOpenAI(...).tools`,
 * `createAzure(...).tools`); only the ones {@link responsesProviderTools} offers.
 */
export interface ResponsesToolFactories {
  webSearch: () => object;
  codeInterpreter: () => object;
}

/**
 * Each provider package pins its own `@ai-sdk/provider-utils`, so its `Tool` type differs nominally
 * from the one `ai` expects although the runtime object (a provider-defined tool) is the same.
 */
const asTool = (tool: object): ToolSet[string] => tool as ToolSet[string];

/**
 * Names the built-in tools are offered under. They equal the provider's own tool names, so the
 * `provider-tool-*` parts say `web_search` / `code_interpreter` just as OpenAI does.
 */
export const WEB_SEARCH_TOOL = 'web_search';
export const CODE_INTERPRETER_TOOL = 'code_interpreter';

/**
 * The Responses provider options for one backend: what `features` asks for, then the user's flat
 * `provider_options` bag over it (the escape hatch wins, so a config can override any mapping).
 *
 * Keys are the AI SDK's camelCase names (`reasoningEffort`, `reasoningSummary`, `textVerbosity`,
 * `store`, `serviceTier`, `parallelToolCalls`, `user`, `include`, …); the SDK silently drops names it
 * does not know.
 */
export function responsesProviderOptions(
  features: BackendFeatures | undefined,
  userOptions: Record<string, unknown>,
): Record<string, JSONValue> {
  const options: Record<string, JSONValue> = {};
  const reasoning = features?.reasoning;
  if (reasoning !== undefined) {
    // The SDK sends `reasoning` only to model ids it recognises as reasoning models and otherwise drops
    // it with a mere warning. A config that asks for reasoning has said the model reasons (Azure
    // deployment names and fine-tunes are unrecognisable), so let the provider judge instead.
    options.forceReasoning = true;
    if (reasoning.effort !== undefined) options.reasoningEffort = reasoning.effort;
    if (reasoning.summary !== undefined) options.reasoningSummary = reasoning.summary;
  }
  if (features?.textVerbosity !== undefined) options.textVerbosity = features.textVerbosity;
  return { ...options, ...(userOptions as Record<string, JSONValue>) };
}

/**
 * Built-in tools `features` asks for, executed by the provider: web search and the code interpreter
 * (in an automatically created container). Their calls stream back as `provider-tool-*` parts.
 */
export function responsesProviderTools(
  features: BackendFeatures | undefined,
  factories: ResponsesToolFactories,
): ToolSet {
  const tools: ToolSet = {};
  if (features?.webSearch === true) tools[WEB_SEARCH_TOOL] = asTool(factories.webSearch());
  if (features?.codeExecution === true) tools[CODE_INTERPRETER_TOOL] = asTool(factories.codeInterpreter());
  return tools;
}

/**
 * Headers for the SDK provider. Without an API key the SDK would read its own environment variable
 * (backends never read the environment), so the caller passes an empty key and this drops the
 * resulting empty credential header instead: keyless servers (a loopback proxy) get no credential.
 */
export function providerHeaders(
  credentialHeader: string,
  apiKey: string | undefined,
  headers: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (apiKey !== undefined) return headers;
  // `undefined` values are removed by the SDK's header normalisation; the type does not admit them.
  return { [credentialHeader]: undefined, ...headers } as unknown as Record<string, string>;
}
