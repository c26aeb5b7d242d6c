import { describe, expect, it } from 'vitest';
import { AGENTS, eventBuilder } from './fixtures.test-support.js';
import { LiveViewStore } from './store.js';

describe('ask_others in the live view', () => {
  it('shows each question and answer as a timeline line, with terminal escapes in them inert', () => {
    const store = new LiveViewStore();
    const b = eventBuilder();
    b.emit({ type: 'run.started', question: 'Q', agents: AGENTS, settings: {} });
    const question = 'Which port?\x1b]0;PWNED\x07\x1b[2J';
    b.emit({
      type: 'ask_others.asked',
      agentId: 'gpt',
      questionId: 'q1',
      mode: 'human',
      question,
      targets: [],
      deadline: 0,
    });
    b.emit({
      type: 'ask_others.answered',
      agentId: 'gpt',
      questionId: 'q1',
      from: 'human',
      answer: '8080\x1b[31m',
      outcome: 'answered',
      source: 'web',
    });
    for (const event of b.events) store.handle(event);
    const lines = store.current().view.timeline.map((t) => t.text);
    expect(lines).toContain('QUESTION from gpt to you (press m to answer): Which port?␛]0;PWNED␇␛[2J');
    expect(lines).toContain('ANSWER to gpt from you: 8080␛[31m');
    expect(lines.join('\n')).not.toContain('\x1b');
  });
});
