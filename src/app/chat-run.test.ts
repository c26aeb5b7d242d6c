import { describe, expect, it } from 'vitest';
import { ScriptedBackend, step, type RecordedRequest, type ScriptStep } from '../testing/index.js';
import { conversationToRun, streamChatRun, type ChatMessage, type ChatRunPart } from './chat-run.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('conversationToRun', () => {
  it('the last user message is the question; earlier exchanges are history', () => {
    expect(conversationToRun([user('a?'), assistant('A.'), user('b?'), assistant('B.'), user('c?')])).toEqual(
      {
        question: 'c?',
        history: [
          { question: 'a?', answer: 'A.' },
          { question: 'b?', answer: 'B.' },
        ],
        attachments: [],
      },
    );
  });

  it('joins consecutive messages of one side; system and developer messages become instructions', () => {
    const run = conversationToRun([
      { role: 'system', content: 'Be brief.' },
      user('part one'),
      user('part two'),
      assistant('one'),
      assistant('two'),
      { role: 'tool', content: 'tool output' },
      { role: 'developer', content: 'Use metric units.' },
      user('next'),
    ]);
    expect(run.history).toEqual([{ question: 'part one\n\npart two', answer: 'one\n\ntwo' }]);
    expect(run.question).toBe('next\n\nInstructions from the caller:\nBe brief.\n\nUse metric units.');
  });

  it('refuses a conversation with no user message, or one that ends with the assistant', () => {
    expect(() => conversationToRun([{ role: 'system', content: 'x' }])).toThrow(
      /does not end with a user message/,
    );
    expect(() => conversationToRun([user('q'), assistant('a')])).toThrow(/does not end with a user message/);
    expect(() => conversationToRun([user('   ')])).toThrow(/does not end with a user message/);
  });
});

/** Answers once per attempt, votes for the first answer, presents, and sends the first final answer back. */
function restarting(name: string): ScriptStep[] {
  let answeredIn = 0;
  let checked = false;
  const text = (r: RecordedRequest) =>
    r.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  const decide = (request: RecordedRequest): ScriptStep => {
    const tools = request.tools.map((t) => t.name);
    const attempt = (text(request).match(/Attempt \d+ was not accepted/g) ?? []).length + 1;
    if (tools.includes('request_restart')) {
      if (checked) return step.tool('accept_answer', {});
      checked = true;
      return step.tool('request_restart', { reason: 'too short', instructions: 'say more' });
    }
    if (!tools.includes('vote') && !tools.includes('new_answer'))
      return step.text(`Final from ${name}, attempt ${attempt}`);
    if (tools.includes('new_answer') && answeredIn < attempt) {
      answeredIn = attempt;
      return step.answer(`Answer by ${name}, attempt ${attempt}`);
    }
    return step.vote('agent1', 'fine');
  };
  return Array.from({ length: 30 }, () => decide);
}

describe('streamChatRun', () => {
  it('yields the trace as reasoning and only the accepted final answer as text, once, at the end', async () => {
    const parts: ChatRunPart[] = [];
    const run = streamChatRun([user('What is 6 times 7?')], {
      config: {
        agents: ['a', 'b'].map((id) => ({
          id,
          backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' },
        })),
        orchestrator: { coordination: { max_orchestration_restarts: 1 } },
      },
      agents: ['a', 'b'].map((id) => ({ id, backend: new ScriptedBackend(restarting(id)) })),
      logging: false,
      env: {},
    });
    let next = await run.next();
    for (; !next.done; next = await run.next()) parts.push(next.value);

    const texts = parts.filter((p) => p.type === 'text');
    const finalAnswer = next.value.finalAnswer ?? '';
    expect(finalAnswer).toMatch(/^Final from \w, attempt 2$/);
    expect(texts).toEqual([{ type: 'text', text: finalAnswer }]);
    expect(parts.at(-1)).toEqual({ type: 'text', text: finalAnswer });
    const trace = parts
      .filter((p) => p.type === 'reasoning')
      .map((p) => p.text)
      .join('');
    // The first attempt's presentation is part of the trace, not of the answer.
    expect(trace).toMatch(/── \w presents the final answer ──\n\[\w\] Final from \w, attempt 1\n/);
    expect(trace).toContain('— Attempt 2 — instructions: say more');
    expect(trace).toMatch(/✔ Completed in [\d.]+s — winner \w/);
  });
});
