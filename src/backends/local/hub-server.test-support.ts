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
  /** Serve byte ranges (`accept-ranges: bytes`), as Hugging Face's CDN does; default true. */
  ranges?: boolean;
  /** Send the body in pieces of this size with this delay between them (default: all at once). */
  chunkBytes?: number;
  chunkDelayMs?: number;
  /** Destroy the connection after this many body bytes of each response (content-length still promises all). */
  cutAfterBytes?: number;
  /** Stop sending after this many body bytes of each response but keep the connection open. */
  stallAfterBytes?: number;
  /** Only these ranged requests (by first byte) stall or are cut; default all requests. */
  faultyFrom?: (firstByte: number) => boolean;
  status?: number;
}

/** One request the hub received. */
export interface HubRequest {
  method: string;
  path: string;
  /** The first byte of a ranged request; undefined for a whole-file request. */
  from?: number;
  /** The request's `authorization` header, when it had one. */
  authorization?: string;
}

export interface FakeHub {
  endpoint: string;
  /** All requests received, in order. */
  requests: HubRequest[];
  /** The paths of all requests, in order. */
  paths(): string[];
  close(): Promise<void>;
}

/** A Hugging Face-like file server on 127.0.0.1 serving `files` at `/<user>/<repo>/resolve/main/<file>`. */
export async function startFakeHub(files: Record<string, HubFile>): Promise<FakeHub> {
  const requests: HubRequest[] = [];
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    const method = request.method ?? 'GET';
    const { authorization } = request.headers;
    requests.push({
      method,
      path,
      ...(range ? { from: Number(range[1]) } : {}),
      ...(authorization ? { authorization } : {}),
    });
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
    const ranges = file.ranges ?? true;
    const size = file.body.length;
    const start = ranges && range ? Number(range[1]) : 0;
    const end = ranges && range && range[2] !== '' ? Math.min(Number(range[2]) + 1, size) : size;
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'content-length': String(end - start),
      ...(ranges ? { 'accept-ranges': 'bytes' } : {}),
      ...(ranges && range ? { 'content-range': `bytes ${start}-${end - 1}/${size}` } : {}),
    };
    if (hash !== null && !cdn) headers[file.hashHeader ?? 'x-linked-etag'] = `"${hash}"`;
    response.writeHead(file.status ?? (ranges && range ? 206 : 200), headers);
    if (method === 'HEAD') {
      response.end();
      return;
    }
    const faulty = file.faultyFrom?.(start) ?? true;
    void send(response, file.body.subarray(start, end), file, faulty);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    paths: () => requests.map((r) => r.path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(response: ServerResponse, body: Buffer, file: HubFile, faulty: boolean): Promise<void> {
  const cut = faulty ? file.cutAfterBytes : undefined;
  const stall = faulty ? file.stallAfterBytes : undefined;
  const limit = Math.min(body.length, cut ?? Infinity, stall ?? Infinity);
  const step = file.chunkBytes ?? body.length;
  for (let at = 0; at < limit && !response.destroyed; at += step) {
    response.write(body.subarray(at, Math.min(limit, at + step)));
    if (file.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, file.chunkDelayMs));
  }
  if (cut !== undefined) response.destroy();
  else if (stall === undefined) response.end();
}
