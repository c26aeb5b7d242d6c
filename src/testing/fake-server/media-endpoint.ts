import type { IncomingMessage } from 'node:http';
import type { RawRoute } from './server.js';

/** One request a fake media endpoint received. */
export interface RecordedMediaRequest {
  method: string;
  /** Without the query string. */
  path: string;
  /** Lower-cased headers, without credentials. */
  headers: Record<string, string>;
  /** Whether credentials were sent (a key header or `?key=`); values are never recorded. */
  hasAuthorization: boolean;
  /** The JSON body, or null for another body. */
  json: Record<string, unknown> | null;
  /** The text fields of a multipart body. */
  fields: Record<string, string>;
  /** The files of a multipart body. */
  files: { field: string; filename: string; type: string; bytes: number }[];
}

/** What a media route answers: JSON, or bytes of a type. */
export type MediaAnswer =
  { status?: number; json: unknown } | { status?: number; body: Uint8Array; contentType: string };

/** One path of a media endpoint. */
export interface MediaRouteSpec {
  matches(method: string, path: string): boolean;
  answer(request: RecordedMediaRequest, url: URL): MediaAnswer | Promise<MediaAnswer>;
}

/** A vendor's media endpoints on a fake server: add `routes` to `startFakeServer`'s options. */
export interface FakeMediaEndpoint {
  readonly requests: readonly RecordedMediaRequest[];
  readonly routes: readonly RawRoute[];
  /** The next request gets this HTTP error (the vendor's error shape) instead of its answer. */
  failNext(status: number, message?: string): void;
  /** Forgets recorded requests and queued failures. */
  reset(): void;
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key']);

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function record(req: IncomingMessage, url: URL): Promise<RecordedMediaRequest> {
  const headers: Record<string, string> = {};
  let hasAuthorization = url.searchParams.has('key');
  for (const [name, value] of Object.entries(req.headers)) {
    if (CREDENTIAL_HEADERS.has(name)) hasAuthorization = true;
    else if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const raw = await readRaw(req);
  const type = headers['content-type'] ?? '';
  const out: RecordedMediaRequest = {
    method: req.method ?? 'GET',
    path: url.pathname,
    headers,
    hasAuthorization,
    json: null,
    fields: {},
    files: [],
  };
  if (type.startsWith('multipart/form-data')) {
    // The platform's own multipart parser: what a real server would make of the upload.
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') out.fields[field] = value;
      else out.files.push({ field, filename: value.name, type: value.type, bytes: value.size });
    }
  } else if (raw.length > 0) {
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        out.json = parsed as Record<string, unknown>;
      }
    } catch {
      // Not JSON: recorded without a body.
    }
  }
  return out;
}

/** Builds an endpoint from its routes; `errorBody` is the vendor's error shape. */
export function mediaEndpoint(
  specs: readonly MediaRouteSpec[],
  errorBody: (status: number, message: string) => unknown,
): FakeMediaEndpoint {
  const requests: RecordedMediaRequest[] = [];
  const failures: { status: number; message: string }[] = [];
  const routes: RawRoute[] = specs.map((spec) => ({
    matches: (method, path) => spec.matches(method, path),
    async handle(req, res, url) {
      const request = await record(req, url);
      requests.push(request);
      const failure = failures.shift();
      const answer: MediaAnswer = failure
        ? { status: failure.status, json: errorBody(failure.status, failure.message) }
        : await spec.answer(request, url);
      if ('json' in answer) {
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.json));
      } else {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType });
        res.end(answer.body);
      }
    },
  }));
  return {
    get requests() {
      return requests;
    },
    routes,
    failNext(status, message = `fake server: scripted HTTP ${status}`) {
      failures.push({ status, message });
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
    },
  };
}
