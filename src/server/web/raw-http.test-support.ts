import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import type { RunEvent } from '../../types/events.js';
import type { SocketMessage, WebServer } from './web-server.js';

/**
 * HTTP as a browser or an attacker sends it, for the servers' tests: any Host, Origin and
 * Sec-Fetch-Site (fetch does not let a caller set them all), and raw bytes for what no client library
 * would send at all.
 */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request to 127.0.0.1:`port` with exactly these headers (no Host unless given). */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        // Only the headers given: a request without Host is possible too.
        setHost: false,
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Writes `text` to a fresh connection and resolves with the status code of the answer (0: none). */
export function rawBytes(port: number, text: string | Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

/** The HTTP status a WebSocket upgrade is answered with (101 when it is accepted). */
export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
      ws.terminate();
    });
    ws.on('error', (error) =>
      error.message.includes('Unexpected server response') ? undefined : reject(error),
    );
  });
}

/** An open WebSocket (rejects when the upgrade is refused). */
export function openSocket(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The close code the server ends `ws` with. */
export function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.on('error', () => undefined);
    ws.once('close', (code) => resolve(code));
  });
}

/** A web server run's events from its socket, once its `done` (or error) comes down. */
export function runEventsUntilDone(server: WebServer, runId: string): Promise<RunEvent[]> {
  return new Promise<RunEvent[]>((resolve, reject) => {
    const ws = new WebSocket(
      `ws://127.0.0.1:${server.port}/ws?run=${runId}&after=-1&token=${server.authToken}`,
    );
    const events: RunEvent[] = [];
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as SocketMessage;
      if (message.type === 'event') events.push(message.event);
      else {
        ws.close();
        resolve(events);
      }
    });
    ws.on('error', reject);
  });
}
