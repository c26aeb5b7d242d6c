import {
  streamChatRun,
  totalUsage,
  type ChatMessage,
  type MassGenOptions,
  type PreparedRun,
  type RunLauncher,
} from '../../app/index.js';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunResult } from '../../types/run-result.js';
import { describeError, MassGenError } from '../../types/errors.js';
import { untilAborted } from '../../util/abort.js';
import {
  cancelledByShutdown,
  chunk,
  completion,
  deltaOf,
  usageChunk,
  WireError,
  type CompletionHead,
} from './chat-wire.js';

/** One accepted request, ready to run: its messages, the config it runs, and how to answer. */
export interface CompletionJob {
  head: CompletionHead;
  messages: ChatMessage[];
  stream: boolean;
  includeUsage: boolean;
  /** Run options without the question (config, cwd, env, logging, clock). */
  run: Omit<MassGenOptions, 'question' | 'history' | 'signal'> & { launch?: RunLauncher };
  /** Aborts when the client goes away or the server stops: the run is cancelled. */
  signal: AbortSignal;
  /**
   * Aborts when the server stops waiting for the run (its shutdown bound ran out, the run's logs were
   * closed for it): the client is answered at once, as cancelled.
   */
  forced?: AbortSignal;
  /** True once the server is stopping: a run that ends without its answer was cancelled by the shutdown. */
  stopping?: () => boolean;
  /** Called with the run once it is prepared in this process (not with `launch`). */
  onPrepared?: (run: PreparedRun) => void;
  /** Milliseconds between SSE comments while nothing else is sent (default {@link KEEP_ALIVE_MS}). */
  keepAliveMs?: number;
  /** `performance.now()` when the request arrived and when it got its run slot, for `Server-Timing`. */
  timing: { receivedAt: number; admittedAt: number };
  /**
   * Called once, when the run is over — its logs closed — or could not start: gives the run slot back,
   * logs the run. Before the client gets the last of its answer, so what reports the run ended (the
   * access log, `/health`) never does so while its log folder is still being written.
   */
  onDone: (result: RunResult | null, error?: unknown) => void;
}

/** Milliseconds between SSE comments while nothing else is sent, so proxies keep an idle stream open. */
const KEEP_ALIVE_MS = 15_000;

/** A run that ended without an answer, as the error the client gets (`500`, with the reason). */
function runFailure(result: RunResult): WireError {
  const reason = result.error?.message ?? `the run ended with status "${result.status}"`;
  return new WireError(500, `the run failed: ${reason}`, 'server_error', result.error?.code ?? result.status);
}

/** What the client is told when its run ended without an answer (`result`) or threw (`error`). */
function failureOf(job: CompletionJob, result: RunResult | null, error?: unknown): WireError {
  if (job.stopping?.() === true) return cancelledByShutdown();
  return result ? runFailure(result) : startFailure(error);
}

/** An error before the run could start (a bad config the server offers, a conversation with no question). */
function startFailure(error: unknown): WireError {
  if (error instanceof WireError) return error;
  if (error instanceof MassGenError && error.code === 'usage_error')
    return new WireError(400, describeError(error), 'invalid_request_error', 'invalid_request', 'messages');
  const code = error instanceof MassGenError ? error.code : 'server_error';
  return new WireError(500, `the run could not start: ${describeError(error)}`, 'server_error', code);
}

/**
 * Runs the job and answers it: one JSON body, or an SSE stream of chunks (the trace as
 * `reasoning_content`, then the answer as `content`, `finish_reason: "stop"`, the usage when asked,
 * `[DONE]`). Errors before the stream starts are thrown as {@link WireError}s; a run that fails after
 * the stream started ends it with an error event (which OpenAI's clients raise), then `[DONE]`.
 */
export async function answerCompletion(context: Context, job: CompletionJob): Promise<Response> {
  const controller = new AbortController();
  const abort = () => controller.abort(job.signal.reason);
  if (job.signal.aborted) abort();
  else job.signal.addEventListener('abort', abort, { once: true });
  let finished = false;
  const done = (result: RunResult | null, error?: unknown) => {
    if (finished) return;
    finished = true;
    job.signal.removeEventListener('abort', abort);
    job.onDone(result, error);
  };

  const parts = streamChatRun(job.messages, {
    ...job.run,
    signal: controller.signal,
    ...(job.onPrepared ? { onPrepared: job.onPrepared } : {}),
  });
  // Past the shutdown's bound the run is not waited for any longer (it goes on until the process exits).
  const next = () => untilAborted(parts.next(), job.forced);
  let first: Awaited<ReturnType<typeof parts.next>>;
  try {
    // Preparation (config, backends, log folder) happens here, so its errors still get a status code.
    first = await next();
  } catch (error) {
    done(null, error);
    throw failureOf(job, null, error);
  }

  if (!job.stream) {
    let trace = '';
    let answer = '';
    let part = first;
    try {
      for (; !part.done; part = await next()) {
        if (part.value.type === 'text') answer += part.value.text;
        else trace += part.value.text;
      }
    } catch (error) {
      done(null, error);
      throw failureOf(job, null, error);
    }
    const result = part.value;
    done(result);
    if (result.status !== 'completed' || result.finalAnswer === null) throw failureOf(job, result);
    const { receivedAt, admittedAt } = job.timing;
    const serverTiming = [
      `queue;dur=${(admittedAt - receivedAt).toFixed(1)}`,
      `run;dur=${result.durationMs}`,
      `total;dur=${(performance.now() - receivedAt).toFixed(1)}`,
    ].join(', ');
    return Response.json(completion(job.head, answer, trace, totalUsage(result.usage), result), {
      headers: { 'Server-Timing': serverTiming },
    });
  }

  // hono's SSE helper: its writes never throw (a client that vanished between two keep-alives is a
  // no-op, not a crash of `serve`), and a cancelled response reaches `onAbort`.
  // Proxies such as nginx would otherwise hold the chunks back.
  context.header('X-Accel-Buffering', 'no');
  return streamSSE(context, async (sse) => {
    sse.onAbort(() => controller.abort(new Error('client disconnected')));
    const send = (data: unknown) =>
      sse.writeSSE({ data: typeof data === 'string' ? data : JSON.stringify(data) });
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n'), job.keepAliveMs ?? KEEP_ALIVE_MS);
    let result: RunResult | null = null;
    try {
      await send(chunk(job.head, { role: 'assistant', content: '' }));
      for (let part = first; ; part = await next()) {
        if (part.done) {
          result = part.value;
          break;
        }
        await send(chunk(job.head, deltaOf(part.value)));
      }
      done(result);
      if (result.status === 'completed' && result.finalAnswer !== null) {
        await send(chunk(job.head, {}, 'stop'));
        if (job.includeUsage) await send(usageChunk(job.head, totalUsage(result.usage)));
      } else {
        await send(failureOf(job, result).body());
      }
      await send('[DONE]');
    } catch (error) {
      done(result, error);
      await send(failureOf(job, result, error).body());
      await send('[DONE]');
    } finally {
      clearInterval(keepAlive);
    }
  });
}
