/** Hosts of Azure OpenAI / AI Foundry resources, as `@ai-sdk/azure` recognises them. */
const AZURE_HOST_SUFFIXES = ['.openai.azure.com', '.cognitiveservices.azure.com', '.services.ai.azure.com'];

/** What `createAzure` needs from a user's `base_url`. */
export interface AzureEndpoint {
  baseURL: string;
  /** From an `?api-version=` the user copied along with the endpoint, if any. */
  apiVersion?: string;
}

/**
 * The `createAzure` settings for a user's `base_url`.
 *
 * `@ai-sdk/azure` appends `/v1/responses?api-version=…` to a base ending in `/openai` and just
 * `/responses` to one ending in `/openai/v1`, but a bare resource endpoint (what the Azure portal
 * shows, `https://<resource>.openai.azure.com`) would become `…/v1/responses`, which Azure does not
 * serve. So a bare Azure endpoint gets `/openai` added; every other URL (with a path, or a gateway
 * such as API Management on another host, where the SDK appends `/responses`) is used as written.
 * The SDK builds the query itself, so a pasted `?api-version=` moves to {@link AzureEndpoint.apiVersion}.
 *
 * @throws TypeError when `baseUrl` is not an absolute URL.
 */
export function azureEndpoint(baseUrl: string): AzureEndpoint {
  const url = new URL(baseUrl);
  const apiVersion = url.searchParams.get('api-version') ?? undefined;
  url.search = '';
  url.hash = '';
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname =
    path === '' && AZURE_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix)) ? '/openai' : path;
  const baseURL = url.toString().replace(/\/+$/, '');
  return apiVersion === undefined ? { baseURL } : { baseURL, apiVersion };
}
