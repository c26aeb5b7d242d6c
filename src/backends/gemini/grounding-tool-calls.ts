import type { LanguageModelV3, LanguageModelV3Middleware, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateId, wrapLanguageModel } from 'ai';
import { GOOGLE_SEARCH } from './provider-tools.js';
import { isRecord } from '../../util/guards.js';

/** What a grounded search reports, as the orchestrator sees it in the `provider-tool-*` parts. */
export interface GroundingSearch {
  /** `webSearchQueries`: what the model searched for. */
  queries: string[];
  /** The web sources of `groundingChunks`. */
  sources: Array<{ url: string; title?: string }>;
}

/**
 * Shows Google Search grounding as a provider-executed `google_search` call and result.
 *
 * Gemini 1.x/2.x search inside the model call and report it only as `groundingMetadata`, which the AI
 * SDK turns into `source` parts and finish metadata, never into tool parts; without this the search
 * would be invisible. Right before `finish`, this adds a `tool-call` (input `{queries}`) and a
 * `tool-result` (output `{sources}`), unless the stream already showed the search as a server-side tool
 * call (Gemini 3 with tool combination reports `toolCall` parts itself).
 */
export function withGroundingToolCalls(model: LanguageModelV3): LanguageModelV3 {
  return wrapLanguageModel({ model, middleware: groundingMiddleware });
}

const groundingMiddleware: LanguageModelV3Middleware = {
  specificationVersion: 'v3',
  async wrapStream({ doStream }) {
    const result = await doStream();
    let searchShown = false;
    const stream = result.stream.pipeThrough(
      new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          if (part.type === 'tool-call' && part.providerExecuted === true && /search/i.test(part.toolName)) {
            searchShown = true;
          }
          if (part.type === 'finish' && !searchShown) {
            const search = groundingSearchOf(part.providerMetadata?.['google']?.['groundingMetadata']);
            if (search !== undefined) {
              const toolCallId = `grounding_${generateId()}`;
              controller.enqueue({
                type: 'tool-call',
                toolCallId,
                toolName: GOOGLE_SEARCH,
                input: JSON.stringify({ queries: search.queries }),
                providerExecuted: true,
              });
              controller.enqueue({
                type: 'tool-result',
                toolCallId,
                toolName: GOOGLE_SEARCH,
                result: { sources: search.sources },
              });
            }
          }
          controller.enqueue(part);
        },
      }),
    );
    return { ...result, stream };
  },
};

/** The queries and web sources of Gemini's `groundingMetadata`; undefined when it shows no search. */
export function groundingSearchOf(metadata: unknown): GroundingSearch | undefined {
  if (!isRecord(metadata)) return undefined;
  const queries = Array.isArray(metadata['webSearchQueries'])
    ? metadata['webSearchQueries'].filter((q): q is string => typeof q === 'string')
    : [];
  const chunks = Array.isArray(metadata['groundingChunks']) ? metadata['groundingChunks'] : [];
  const sources: GroundingSearch['sources'] = [];
  for (const chunk of chunks) {
    const web = isRecord(chunk) ? chunk['web'] : undefined;
    if (!isRecord(web) || typeof web['uri'] !== 'string') continue;
    sources.push({ url: web['uri'], ...(typeof web['title'] === 'string' ? { title: web['title'] } : {}) });
  }
  return queries.length === 0 && sources.length === 0 ? undefined : { queries, sources };
}
