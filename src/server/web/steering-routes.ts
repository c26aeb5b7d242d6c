import { stat } from 'node:fs/promises';
import type { Context, Hono } from 'hono';
import {
  AnswerNowRequestSchema,
  QuestionAnswerRequestSchema,
  SteeringMessageRequestSchema,
  type ApiErrorBody,
  type SteeringResponse,
} from '../../types/web-api.js';
import { pastRunDir } from './history.js';
import { body } from './json-body.js';
import type { RunHub, SteeringReply } from './run-hub.js';

/**
 * Steering a live run from the web (docs/web.md): `POST /api/runs/:id/messages` and
 * `POST /api/runs/:id/answer-now`. They pass the app's request guard like every state-changing route
 * (JSON content type, token, Origin). Both answer 202 when the run took the request; 404 for an
 * unknown run, 409 for one that is over (a past run from the logs too), 400 for a bad body or an
 * unknown agent (the error names the known ids).
 */

export function registerSteeringRoutes(app: Hono, hub: RunHub, cwd: string): void {
  /** A run the hub does not hold may still be a past one (over: 409), else it is unknown (404). */
  const reply = async (c: Context, id: string, result: SteeringReply) => {
    if (result.status === 202)
      return c.json(
        (result.seq === undefined ? { ok: true } : { seq: result.seq }) satisfies SteeringResponse,
        202,
      );
    const past = result.status === 404 ? pastRunDir(cwd, id) : null;
    if (past && (await stat(past).catch(() => null))?.isDirectory())
      return c.json({ error: `run "${id}" is over` } satisfies ApiErrorBody, 409);
    return c.json({ error: result.error } satisfies ApiErrorBody, result.status);
  };

  app.post('/api/runs/:id/messages', async (c) => {
    const id = c.req.param('id');
    const parsed = await body(c, SteeringMessageRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const { text, agentId } = parsed.value;
    return reply(c, id, hub.steer(id, { text, ...(agentId === undefined ? {} : { agentId }) }));
  });

  // The human's answer to an ask_others question (docs/ask-others.md); 409 when it is no longer waiting.
  app.post('/api/runs/:id/questions/:questionId', async (c) => {
    const id = c.req.param('id');
    const parsed = await body(c, QuestionAnswerRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    return reply(c, id, hub.answerQuestion(id, c.req.param('questionId'), parsed.value.text));
  });

  app.post('/api/runs/:id/answer-now', async (c) => {
    const id = c.req.param('id');
    const parsed = await body(c, AnswerNowRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    return reply(c, id, hub.answerNow(id));
  });
}
