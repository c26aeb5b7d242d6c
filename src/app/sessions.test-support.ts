import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { ScriptedBackend, type RecordedRequest, type ScriptStep } from '../testing/scripted-backend.js';
import { ProviderError } from '../types/errors.js';
import type { AgentSpec } from '../coordination/index.js';

/** Test helpers for multi-turn sessions (excluded from the build). */

const tempDirs: string[] = [];

/** A fresh working directory, removed after the test. */
export function workdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-sessions-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0))
    // A turn cancelled by a second Ctrl-C may still be writing its logs: retry rather than race it.
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** The text of the first user message of a request (history, question and answers). */
export function userText(request: RecordedRequest): string {
  const user = request.messages.find((m) => m.role === 'user');
  return user?.content ?? '';
}

/** The question a request is about (the text between the ORIGINAL MESSAGE markers, else the last line). */
export function questionOf(request: RecordedRequest): string {
  const text = userText(request);
  return (
    /<ORIGINAL MESSAGE>\n([\s\S]*?)\n<END OF ORIGINAL MESSAGE>/.exec(text)?.[1] ??
    text.split('\n').at(-1) ??
    ''
  );
}

export const answerOf = (id: string, question: string): string => `${id} answers: ${question}`;
export const finalOf = (question: string): string => `FINAL ANSWER to "${question}"`;

/**
 * One scripted agent that works across any number of turns: it answers while `agent1` has no answer,
 * then votes for `agent1`; the presentation (no workflow tools) is {@link finalOf} the question.
 * A question containing FAIL makes every call fail (the run fails); HANG makes calls wait until aborted.
 */
export function teamMember(id: string): ScriptedBackend {
  const decide: ScriptStep = (request) => {
    const question = questionOf(request);
    if (question.includes('HANG')) return { hang: true };
    if (question.includes('FAIL'))
      return {
        error: new ProviderError('scripted', 'scripted failure (401)', { status: 401, retryable: false }),
      };
    if (!request.tools.some((t) => t.name === 'new_answer')) return { text: finalOf(question), chunks: 3 };
    const vote = request.tools.find((t) => t.name === 'vote');
    const votable = (vote?.parameters as { properties?: { agent_id?: { enum?: string[] } } } | undefined)
      ?.properties?.agent_id?.enum;
    if (votable?.includes('agent1'))
      return {
        toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: `${id}: agent1 is right` } }],
      };
    return {
      text: `${id} thinks.`,
      toolCalls: [{ name: 'new_answer', arguments: { content: answerOf(id, question) } }],
    };
  };
  return new ScriptedBackend([decide], { repeatLast: true, model: `model-${id}`, type: 'scripted' });
}

/** A team of {@link teamMember}s with a matching config (its backends are never built). */
export function scriptedTeam(ids: readonly string[] = ['alice', 'bob']) {
  const backends = Object.fromEntries(ids.map((id) => [id, teamMember(id)])) as Record<
    string,
    ScriptedBackend
  >;
  const agents: AgentSpec[] = ids.map((id) => ({ id, backend: backends[id] as ScriptedBackend }));
  const config = {
    agents: ids.map((id) => ({
      id,
      backend: {
        type: 'chatcompletion',
        model: `model-${id}`,
        base_url: 'http://127.0.0.1:9/v1',
        api_key: `sk-secret-${id}-123456`,
      },
    })),
    timeout_settings: { agent_turn_timeout_seconds: 10, orchestrator_timeout_seconds: 20 },
  };
  return { config, agents, backends };
}
