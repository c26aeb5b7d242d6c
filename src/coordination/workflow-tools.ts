import type { ToolCall, ToolDefinition } from '../types/messages.js';

export const NEW_ANSWER = 'new_answer';
export const VOTE = 'vote';
export const workflowToolNames: ReadonlySet<string> = new Set([NEW_ANSWER, VOTE]);

/**
 * The workflow tools offered on one step. `vote` is only offered when some answer exists: an empty
 * `enum` is invalid JSON Schema for some providers (Gemini rejects the whole request).
 */
export function workflowToolDefinitions(
  votableIds: readonly string[],
  offerNewAnswer = true,
): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (offerNewAnswer) {
    tools.push({
      name: NEW_ANSWER,
      description:
        'Submit a new or improved answer to the original message. Use it only when you can do better than every current answer. Submitting resets all votes.',
      parameters: {
        type: 'object',
        properties: {
          content: { type: 'string', description: 'Your complete answer, written for the user.' },
        },
        required: ['content'],
        additionalProperties: false,
      },
    });
  }
  if (votableIds.length > 0) {
    tools.push({
      name: VOTE,
      description:
        'Vote for the best current answer (you may vote for your own). Prefer voting when an existing answer is already complete and correct.',
      parameters: {
        type: 'object',
        properties: {
          agent_id: {
            type: 'string',
            enum: [...votableIds],
            description: 'The anonymous id of the agent whose answer you endorse.',
          },
          reason: { type: 'string', description: 'Why this answer is the best.' },
        },
        required: ['agent_id', 'reason'],
        additionalProperties: false,
      },
    });
  }
  return tools;
}

export type ParsedWorkflowCall =
  | { kind: 'new_answer'; content: string }
  | { kind: 'vote'; agentId: string; reason: string }
  | { kind: 'invalid'; toolName: 'new_answer' | 'vote'; reason: string };

export function asObject(args: unknown): Record<string, unknown> | null {
  if (typeof args === 'string') {
    try {
      return asObject(JSON.parse(args));
    } catch {
      return null;
    }
  }
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : null;
}

/** Checks a workflow call's arguments (never trusting the provider to have validated them). */
export function parseWorkflowCall(call: ToolCall): ParsedWorkflowCall {
  const toolName = call.name === VOTE ? VOTE : NEW_ANSWER;
  const args = asObject(call.arguments);
  if (!args) {
    return { kind: 'invalid', toolName, reason: `The arguments of ${toolName} must be a JSON object.` };
  }
  if (toolName === NEW_ANSWER) {
    const content = args['content'];
    if (typeof content !== 'string' || content.trim() === '') {
      return { kind: 'invalid', toolName, reason: 'new_answer needs a non-empty "content" string.' };
    }
    return { kind: 'new_answer', content };
  }
  const agentId = args['agent_id'];
  if (typeof agentId !== 'string' || agentId.trim() === '') {
    return {
      kind: 'invalid',
      toolName,
      reason: 'vote needs an "agent_id" string naming one of the current answers.',
    };
  }
  const reason = args['reason'];
  return { kind: 'vote', agentId: agentId.trim(), reason: typeof reason === 'string' ? reason : '' };
}
