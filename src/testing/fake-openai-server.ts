import type { FakeRequestView } from './fake-server/dialect.js';
import { openAIChatDialect, type FakeChatRequestBody } from './fake-server/openai-chat.js';
import { embeddingsResponse } from './fake-server/embeddings.js';
import type { FakeResponse } from './fake-server/script.js';
import {
  startFakeServer,
  type FakeServer,
  type RecordedRequest as AnyRecordedRequest,
} from './fake-server/server.js';

export type {
  FakeErrorResponse,
  FakeHangResponse,
  FakeResponse,
  FakeTextResponse,
  FakeToolCall,
  FakeToolCallsResponse,
  FakeUsage,
} from './fake-server/script.js';
export type { FakeChatRequestBody } from './fake-server/openai-chat.js';

/** One request the fake server received on `POST /v1/chat/completions`. */
export type RecordedRequest = AnyRecordedRequest<FakeChatRequestBody>;

/** Scripts a response from the request itself, e.g. routing on the system message. */
export type FakeResponseHandler = (
  body: FakeChatRequestBody,
  requestIndex: number,
  view: FakeRequestView,
) => FakeResponse | Promise<FakeResponse>;

/** Options of {@link startFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Interface to listen on; defaults to `127.0.0.1` (tests never leave loopback). */
  host?: string;
  /** Port to listen on; defaults to 0 (a free port). */
  port?: number;
  /** Model ids listed by `GET /v1/models`; defaults to `['fake-model']`. */
  models?: string[];
}

/** A scriptable OpenAI Chat Completions server for tests. */
export interface FakeOpenAIServer extends Omit<FakeServer<FakeChatRequestBody>, 'origin'> {
  /** Base URL ending in `/v1`, ready for a `base_url` setting. */
  readonly url: string;
  /** Bodies of the `POST /v1/embeddings` requests received (not in `requests`). */
  readonly embeddingRequests: readonly Record<string, unknown>[];
}

/**
 * Starts a fake OpenAI-compatible server on loopback that answers `POST /v1/chat/completions`
 * (and `POST /v1/embeddings` with deterministic hashed-bag-of-words vectors)
 * (streaming SSE or plain JSON) from a queue of scripted responses or a handler, and records
 * every request. Unscripted requests get a loud 500 so a test cannot pass by accident.
 */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const models = options.models ?? ['fake-model'];
  const embeddingRequests: Record<string, unknown>[] = [];
  const server = await startFakeServer<FakeChatRequestBody>([openAIChatDialect], {
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    getRoutes: {
      '/v1/models': {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'massgen-fake' })),
      },
    },
    postRoutes: {
      '/v1/embeddings': (body) => {
        embeddingRequests.push(body);
        return embeddingsResponse(body);
      },
    },
  });
  const reset = server.reset.bind(server);
  return Object.assign(server, {
    url: `${server.origin}/v1`,
    embeddingRequests,
    reset: () => {
      reset();
      embeddingRequests.length = 0;
    },
  });
}
