import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256 } from './gguf-fixture.test-support.js';

/** How the fake hub serves one file. */
export interface HubFile {
  body: Buffer;
  /** The hash the server announces (default: the body's real sha256); null announces none. */
  sha256?: string | null;
  /** Which header carries the hash: Hugging Face's `x-linked-etag` (default) or a plain `etag`. */
  hashHeader?: 'x-linked-etag' | 'etag';
  /** Answer with a 302 carrying the hash and size, to a CDN path that serves the bytes without them (like Hugging Face). */
  redirect?: boolean;
  /** Send the body in pieces of this size with this delay between them (default: all at once). */
  chunkBytes?: number;
  chunkDelayMs?: number;
  /** Destroy the connection after this many body bytes (content-length still promises all). */
  cutAfterBytes?: number;
  /** Stop sending after this many bytes but keep the connection open. */
  stallAfterBytes?: number;
  status?: number;
}

export interface FakeHub {
  endpoint: string;
  /** Paths of all requests received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A Hugging Face-like file server on 127.0.0.1 serving `files` at `/<user>/<repo>/resolve/main/<file>`. */
export async function startFakeHub(files: Record<string, HubFile>): Promise<FakeHub> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const cdn = path.startsWith('/cdn/');
    const file = files[cdn ? path.slice(4) : path];
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
      return;
    }
    const hash = file.sha256 === undefined ? sha256(file.body) : file.sha256;
    if (file.redirect && !cdn) {
      response.writeHead(302, {
        location: `/cdn${path}`,
        'x-linked-size': String(file.body.length),
        ...(hash === null ? {} : { 'x-linked-etag': `"${hash}"` }),
      });
      response.end();
      return;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'content-length': String(file.body.length),
    };
    if (hash !== null && !cdn) headers[file.hashHeader ?? 'x-linked-etag'] = `"${hash}"`;
    response.writeHead(file.status ?? 200, headers);
    void send(response, file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(response: ServerResponse, file: HubFile): Promise<void> {
  const limit = Math.min(file.body.length, file.cutAfterBytes ?? Infinity, file.stallAfterBytes ?? Infinity);
  const step = file.chunkBytes ?? file.body.length;
  for (let at = 0; at < limit && !response.destroyed; at += step) {
    response.write(file.body.subarray(at, Math.min(limit, at + step)));
    if (file.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, file.chunkDelayMs));
  }
  if (file.cutAfterBytes !== undefined) response.destroy();
  else if (file.stallAfterBytes === undefined) response.end();
}
