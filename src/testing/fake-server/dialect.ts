import type { ServerResponse } from 'node:http';
import type { FakeMedia } from './media-parts.js';
import type { ScriptedReply } from './script.js';

/**
 * A vendor-neutral summary of a model request, so one handler can route requests from agents on
 * different providers (e.g. by system message, or by which tools are offered).
 */
export interface FakeRequestView {
  /** The dialect that received it, e.g. `openai-chat`, `anthropic-messages`. */
  dialect: string;
  model: string;
  /** System / developer instructions, joined. */
  system: string;
  /** Names of the function tools offered. */
  toolNames: string[];
  /** The `enum` of the `vote` tool's `agent_id`, when offered. */
  votableIds: string[];
  /** All message text (user, assistant, tool results), joined — for "did the model see X" routing. */
  text: string;
  /** The media parts the request carried, decoded, in message order (see {@link FakeMedia}). */
  media: FakeMedia[];
  stream: boolean;
}

/** One vendor's wire format: which requests it answers and how it renders a script. */
export interface WireDialect {
  name: string;
  /** True when this dialect answers `method path` (path without the query string). */
  matches(method: string, path: string): boolean;
  /** Reads the parsed JSON body (and the path, for vendors that put the model there). */
  view(body: Record<string, unknown>, path: string): FakeRequestView;
  /** Streams the reply in the vendor's SSE format. */
  writeStream(res: ServerResponse, body: Record<string, unknown>, reply: ScriptedReply): Promise<void>;
  /** The reply as the vendor's non-streaming JSON body. */
  json(body: Record<string, unknown>, reply: ScriptedReply): unknown;
  /** The vendor's error body for an HTTP status. */
  errorBody(status: number, message: string): unknown;
}
