import type { Server, ServerResponse } from 'node:http';
import { PendingSet } from './pending-set.js';

/**
 * The responses a Node HTTP server has not finished sending. A handler that has returned (or a stream
 * that has written its last event) can still have bytes on their way to the socket: a server that
 * closed its connections then would cut the very answer it meant to give.
 */
export class OpenResponses {
  private readonly open = new PendingSet<ServerResponse>();

  constructor(server: Server) {
    server.on('request', (_request, response: ServerResponse) => {
      this.open.add(response);
      // 'close' comes once the response is sent, or its connection went away.
      response.once('close', () => this.open.delete(response));
    });
  }

  /** Resolves once every response begun so far is finished. */
  idle(): Promise<void> {
    return this.open.idle();
  }
}
