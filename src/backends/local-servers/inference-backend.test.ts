import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOpenAIServer } from '../../testing/fake-openai-server.js';
import type { Backend, BackendSettings, ModelRequest, ModelStreamPart } from '../../types/backend.js';
import { ProviderError } from '../../types/errors.js';
import {
  request as baseRequest,
  collect,
  failure as streamFailure,
  textOf as deltasOf,
  useOpenAIServer,
} from '../backend.test-support.js';
import { createInferenceBackend, inferenceBackend, type InferenceCandidate } from './inference-backend.js';

const first = useOpenAIServer();
const second = useOpenAIServer();
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function settings(overrides: Partial<BackendSettings> = {}): BackendSettings {
  return { type: 'inference', model: 'served-model', providerOptions: {}, ...overrides };
}

function request(signal: AbortSignal = new AbortController().signal): ModelRequest {
  return baseRequest({ signal });
}

const failure = (backend: Backend, signal?: AbortSignal): Promise<unknown> =>
  streamFailure(backend.stream(request(signal)));

const textOf = (parts: ModelStreamPart[]): string => deltasOf(parts, 'text-delta').join('');

const candidate = (name: string, baseUrl: string): InferenceCandidate => ({ name, baseUrl });

/** A port nothing listens on: bind an ephemeral one, then release it. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/v1`;
}

/** Accepts connections and never answers, like a wedged server. */
async function hangingServerUrl(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/v1`;
}

describe('inference backend factory', () => {
  it('needs no key and has no fixed default base URL (it probes)', () => {
    expect(inferenceBackend.type).toBe('inference');
    expect(inferenceBackend.apiKeyEnvs({})).toEqual([]);
    expect(inferenceBackend.keyOptional?.({})).toBe(true);
    expect(inferenceBackend.defaultBaseUrl({})).toBeUndefined();
    expect(inferenceBackend.create(settings())).toMatchObject({ type: 'inference', model: 'served-model' });
  });
});

describe('inference server probe', () => {
  it('uses the first candidate that answers', async () => {
    second.server.enqueue({ text: 'from the second server' });
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', await closedPortUrl()), candidate('SGLang', second.server.url)],
    });
    expect(textOf(await collect(backend.stream(request())))).toBe('from the second server');
    expect(second.server.requests).toHaveLength(1);
  });

  it('prefers candidate order when several answer', async () => {
    first.server.enqueue({ text: 'from the first server' });
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', first.server.url), candidate('SGLang', second.server.url)],
    });
    expect(textOf(await collect(backend.stream(request())))).toBe('from the first server');
    expect(second.server.requests).toHaveLength(0);
  });

  it('does not count a server that answers /models with 404 (something else on the port)', async () => {
    second.server.enqueue({ text: 'real server' });
    const backend = createInferenceBackend(settings(), {
      candidates: [
        candidate('vLLM', `${new URL(first.server.url).origin}/not-an-api`),
        candidate('SGLang', second.server.url),
      ],
    });
    expect(textOf(await collect(backend.stream(request())))).toBe('real server');
  });

  it('keeps its choice: later calls go to the same server without probing', async () => {
    const dedicated = await startFakeOpenAIServer();
    dedicated.enqueue({ text: 'one' });
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', await closedPortUrl()), candidate('SGLang', dedicated.url)],
    });
    await collect(backend.stream(request()));
    await dedicated.close();
    // A fresh probe would report "no local inference server"; the cached choice reports the lost server.
    const error = (await failure(backend)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    // ECONNREFUSED, or UND_ERR_SOCKET when the pooled keep-alive connection was the one cut.
    expect(error.message).toMatch(
      new RegExp(`^inference: cannot reach ${dedicated.url} \\((ECONNREFUSED|UND_ERR_SOCKET)\\)$`),
    );
    expect(error.retryable).toBe(true);
  });

  it('when none answers: a non-retryable error naming both URLs and what to do', async () => {
    const [a, b] = [await closedPortUrl(), await closedPortUrl()];
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', a), candidate('SGLang', b)],
    });
    const error = (await failure(backend)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'inference', retryable: false });
    expect(error.message).toBe(
      `inference: no local inference server answered at ${a} (vLLM) or ${b} (SGLang); ` +
        'start vLLM or SGLang, or set base_url to your server',
    );
  });

  it('probes again after a failed probe (the server may have been started since)', async () => {
    const url = await closedPortUrl();
    const backend = createInferenceBackend(settings(), { candidates: [candidate('vLLM', url)] });
    expect(await failure(backend)).toMatchObject({ retryable: false });
    const late = await startFakeOpenAIServer({ port: Number(new URL(url).port) });
    cleanups.push(() => late.close());
    late.enqueue({ text: 'up now' });
    expect(textOf(await collect(backend.stream(request())))).toBe('up now');
  });

  it('gives up on a candidate that does not answer within the probe timeout', async () => {
    second.server.enqueue({ text: 'fallback' });
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', await hangingServerUrl()), candidate('SGLang', second.server.url)],
      probeTimeoutMs: 200,
    });
    expect(textOf(await collect(backend.stream(request())))).toBe('fallback');
  });

  it('aborting during the probe rejects promptly with the abort reason', async () => {
    const backend = createInferenceBackend(settings(), {
      candidates: [candidate('vLLM', await hangingServerUrl())],
      probeTimeoutMs: 10_000,
    });
    const controller = new AbortController();
    const reason = new Error('user pressed ctrl-c');
    setTimeout(() => controller.abort(reason), 100);
    expect(await failure(backend, controller.signal)).toBe(reason);
  });

  it('an already aborted signal throws its reason without probing', async () => {
    const backend = createInferenceBackend(settings(), { candidates: [candidate('vLLM', first.server.url)] });
    const controller = new AbortController();
    controller.abort('gone');
    expect(await failure(backend, controller.signal)).toBe('gone');
  });

  it('with a base_url: no probe, that server is used', async () => {
    first.server.enqueue({ text: 'configured server' });
    const backend = createInferenceBackend(settings({ baseUrl: first.server.url }), {
      candidates: [candidate('vLLM', await closedPortUrl())],
    });
    expect(textOf(await collect(backend.stream(request())))).toBe('configured server');
  });

  it('sends extraBody fields to the probed server', async () => {
    second.server.enqueue({ text: 'ok' });
    const backend = createInferenceBackend(
      settings({ extraBody: { top_k: 5, chat_template_kwargs: { enable_thinking: false } } }),
      { candidates: [candidate('SGLang', second.server.url)] },
    );
    await collect(backend.stream(request()));
    expect(second.server.requests[0]?.body).toMatchObject({
      top_k: 5,
      chat_template_kwargs: { enable_thinking: false },
    });
  });
});
