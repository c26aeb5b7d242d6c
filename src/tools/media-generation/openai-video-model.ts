import type { Experimental_VideoModelV3, Experimental_VideoModelV3CallOptions } from '@ai-sdk/provider';

/** The lengths Sora makes, in seconds. */
const SORA_SECONDS = [4, 8, 12] as const;

/** Where and how to reach OpenAI's Videos API. */
export interface OpenAIVideoSettings {
  baseUrl: string;
  apiKey?: string;
  headers?: Readonly<Record<string, string>>;
}

/** The length Sora makes for an asked one: the next it offers (the longest past it). */
export function soraSeconds(duration: number): number {
  return SORA_SECONDS.find((s) => s >= duration) ?? SORA_SECONDS[SORA_SECONDS.length - 1]!;
}

interface VideoJob {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | string;
  error?: { message?: string } | null;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      { once: true },
    );
  });

/**
 * Sora through OpenAI's Videos API (`POST /videos`, poll `GET /videos/{id}`, `GET /videos/{id}/content`)
 * as an AI SDK video model, so `experimental_generateVideo` drives it like any other: `@ai-sdk/openai`
 * has no video models yet, and MassGen's own video tool calls exactly this API.
 * `providerOptions.openai.pollIntervalMs` sets the polling interval (default 5 s).
 */
export function openAIVideoModel(modelId: string, settings: OpenAIVideoSettings): Experimental_VideoModelV3 {
  const base = settings.baseUrl.replace(/\/+$/, '');
  const headers = (extra: Record<string, string | undefined> = {}): Record<string, string> => {
    const all: Record<string, string | undefined> = {
      ...settings.headers,
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      ...extra,
    };
    return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  };
  const call = async (path: string, init: RequestInit, signal?: AbortSignal): Promise<Response> => {
    const response = await fetch(`${base}${path}`, { ...init, ...(signal ? { signal } : {}) });
    if (!response.ok) {
      const text = await response.text();
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // Not JSON: the start of the body says it.
      }
      throw new Error(
        `OpenAI ${path.split('/').slice(0, 2).join('/')} answered HTTP ${response.status}: ${message}`,
      );
    }
    return response;
  };
  return {
    specificationVersion: 'v3',
    provider: 'openai.video',
    modelId,
    maxVideosPerCall: 1,
    async doGenerate(options: Experimental_VideoModelV3CallOptions) {
      const { abortSignal: signal } = options;
      const openai = (options.providerOptions['openai'] ?? {}) as { pollIntervalMs?: number };
      const pollMs = typeof openai.pollIntervalMs === 'number' ? openai.pollIntervalMs : 5000;
      const seconds = options.duration === undefined ? undefined : soraSeconds(options.duration);
      const body = {
        model: modelId,
        prompt: options.prompt ?? '',
        ...(seconds === undefined ? {} : { seconds: String(seconds) }),
        ...(options.resolution === undefined ? {} : { size: options.resolution }),
      };
      const created = await call(
        '/videos',
        {
          method: 'POST',
          headers: headers({ 'content-type': 'application/json', ...options.headers }),
          body: JSON.stringify(body),
        },
        signal,
      );
      let job = (await created.json()) as VideoJob;
      while (job.status !== 'completed') {
        if (job.status === 'failed')
          throw new Error(`Sora could not make the video: ${job.error?.message ?? 'failed'}`);
        await sleep(pollMs, signal);
        job = (await (await call(`/videos/${job.id}`, { headers: headers() }, signal)).json()) as VideoJob;
      }
      const content = await call(`/videos/${job.id}/content`, { headers: headers() }, signal);
      return {
        videos: [
          {
            type: 'binary' as const,
            data: new Uint8Array(await content.arrayBuffer()),
            mediaType: content.headers.get('content-type') ?? 'video/mp4',
          },
        ],
        warnings: [],
        response: { timestamp: new Date(), modelId, headers: undefined },
      };
    },
  };
}
