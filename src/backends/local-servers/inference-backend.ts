import type { Backend, BackendFactory, BackendSettings, ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import { createOpenAICompatibleBackend } from '../chatcompletion/openai-compatible-backend.js';
import { LOCAL_SERVER_CAPABILITIES } from './local-server-factory.js';
import { probeServer } from './probe-server.js';
import {
  OPENAI_COMPATIBLE_FORMATS,
  openAICompatibleMediaIn,
  type MediaInputSettings,
} from '../media-input.js';
import { untilAborted } from '../../util/abort.js';

const TYPE = 'inference';

/** A place a local inference server may listen. */
export interface InferenceCandidate {
  /** Named in the error when nothing answers, e.g. `vLLM`. */
  name: string;
  baseUrl: string;
}

/** What the served model takes: images unless `media_in:` says otherwise. */
const media = (settings: MediaInputSettings) => ({
  input: openAICompatibleMediaIn(settings, false),
  formats: OPENAI_COMPATIBLE_FORMATS,
});

/** Where `inference` looks when the config gives no `base_url`, in order of preference. */
export const DEFAULT_INFERENCE_CANDIDATES: readonly InferenceCandidate[] = [
  { name: 'vLLM', baseUrl: 'http://localhost:8000/v1' },
  { name: 'SGLang', baseUrl: 'http://localhost:30000/v1' },
];

/** Per-candidate probe timeout: a server that is up answers `/models` well within it. */
export const DEFAULT_PROBE_TIMEOUT_MS = 1500;

/** Test seams of {@link createInferenceBackend}. */
export interface InferenceBackendOptions {
  candidates?: readonly InferenceCandidate[];
  probeTimeoutMs?: number;
}

/**
 * The `inference` backend: whichever local vLLM or SGLang server is running. With a `base_url` it is
 * simply that server. Without one, the first `stream()` probes `GET <candidate>/models` on every
 * candidate at once and uses the first candidate, in order, that answers; the choice is then kept for
 * the backend's lifetime. When none answers the call fails with a non-retryable {@link ProviderError}
 * naming every URL tried, and the next call probes again (the user may have started a server since).
 *
 * The probe cannot run in `create()` (factories are synchronous), hence the lazy first call.
 */
export function createInferenceBackend(
  settings: BackendSettings,
  options: InferenceBackendOptions = {},
): Backend {
  if (settings.baseUrl !== undefined) {
    return createOpenAICompatibleBackend({
      type: TYPE,
      baseURL: settings.baseUrl,
      settings,
      media: media(settings),
    });
  }
  const candidates = options.candidates ?? DEFAULT_INFERENCE_CANDIDATES;
  const timeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  let chosen: Backend | undefined;
  let probing: Promise<Backend> | undefined;

  const choose = (): Promise<Backend> => {
    // Concurrent first calls share one probe. It is bounded by its timeout rather than tied to any one
    // caller's signal, so one caller aborting never fails another; each caller stops waiting on its own.
    probing ??= findServer(candidates, timeoutMs, probeHeaders(settings))
      .then((baseURL) => {
        chosen = createOpenAICompatibleBackend({ type: TYPE, baseURL, settings, media: media(settings) });
        return chosen;
      })
      .finally(() => {
        probing = undefined;
      });
    return probing;
  };

  return {
    type: TYPE,
    model: settings.model,
    async *stream(request): AsyncGenerator<ModelStreamPart> {
      request.signal.throwIfAborted();
      const backend = chosen ?? (await untilAborted(choose(), request.signal));
      yield* backend.stream(request);
    },
  };
}

/** The registry entry: probes vLLM's then SGLang's default address unless `base_url` is set. */
export const inferenceBackend: BackendFactory = {
  type: TYPE,
  description: 'A local vLLM or SGLang server, whichever answers (localhost:8000, then localhost:30000)',
  capabilities: LOCAL_SERVER_CAPABILITIES,
  apiKeyEnvs: () => [],
  // Undefined on purpose: without a `base_url` the server is found by probing at the first call.
  defaultBaseUrl: () => undefined,
  keyOptional: () => true,
  mediaIn: (settings) => media(settings).input,
  create: (settings) => createInferenceBackend(settings),
};

async function findServer(
  candidates: readonly InferenceCandidate[],
  timeoutMs: number,
  headers: Record<string, string>,
): Promise<string> {
  const done = new AbortController();
  const answers = candidates.map((candidate) =>
    probeServer(candidate.baseUrl, { timeoutMs, headers, signal: done.signal }),
  );
  try {
    // Probes run in parallel, but preference follows candidate order: a later candidate only wins
    // once every earlier one has failed.
    for (const [index, answer] of answers.entries()) {
      const candidate = candidates[index];
      if (candidate !== undefined && (await answer)) return candidate.baseUrl;
    }
  } finally {
    done.abort();
  }
  const tried = candidates.map((c) => `${c.baseUrl} (${c.name})`).join(' or ');
  const servers = candidates.map((c) => c.name).join(' or ');
  throw new ProviderError(
    TYPE,
    `${TYPE}: no local inference server answered at ${tried}; start ${servers}, or set base_url to your server`,
    { retryable: false },
  );
}

function probeHeaders(settings: BackendSettings): Record<string, string> {
  return {
    ...settings.headers,
    ...(settings.apiKey === undefined ? {} : { authorization: `Bearer ${settings.apiKey}` }),
  };
}
