import { describe, expect, it } from 'vitest';
import type { SessionTurnSummary } from '../../app/sessions.js';
import { formatHistory, formatSessionTable } from './format.js';
import { printError } from './print-error.js';

/** What a session file, a model or a tool might hold: a title, a clear, a forged colour, C1, bidi, CR. */
const NASTY = '\x1b]0;PWNED\x07\x1b[2J\x1b[31mFAKE\x1b[0m \u009b2J \u202Eevil\u202C';
const SHOWN = '␛]0;PWNED␇␛[2J␛[31mFAKE␛[0m \\u009B2J \\u202Eevil\\u202C';
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\x00-\x08\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/u;

const turn = (over: Partial<SessionTurnSummary>): SessionTurnSummary => ({
  index: 1,
  question: 'q',
  answer: 'a',
  winnerId: 'gpt',
  winnerLabel: 'agent1.1',
  status: 'completed',
  exitCode: 0,
  durationMs: 1,
  usage: {},
  costUsd: {},
  error: null,
  logDir: null,
  dir: null,
  ...over,
});

describe('interactive output quoting models, tools and session files is inert', () => {
  it('/history and the resumed banner: questions, answers and errors', () => {
    const text = formatHistory([
      turn({ question: `Q ${NASTY}`, answer: `A ${NASTY}` }),
      turn({ index: 2, answer: null, status: 'failed', error: { code: 'x', message: `E ${NASTY}` } }),
    ]);
    expect(text).not.toMatch(ACTIVE);
    expect(text).toContain(`Q ${SHOWN}`);
    expect(text).toContain(`A ${SHOWN}`);
    expect(text).toContain(`E ${SHOWN}`);
  });

  it('--list-sessions: the first question and the unreadable folders', () => {
    const text = formatSessionTable(
      [
        {
          id: 'session_1',
          dir: '/s/session_1',
          createdAt: '2025-01-01T00:00:00Z',
          updatedAt: '2025-01-01T00:00:00Z',
          configSource: 'c.yaml',
          agents: [],
          turnCount: 1,
          firstQuestion: NASTY,
        },
      ],
      [{ path: '/s/bad', message: `broken ${NASTY}` }],
      '/s',
    );
    expect(text).not.toMatch(ACTIVE);
    expect(text).toContain('␛]0;PWNED␇');
    expect(text).toContain(`broken ${SHOWN}`);
  });

  it('an error that quotes a model', () => {
    let out = '';
    printError((t) => (out += t), new Error(`provider said: ${NASTY}\rFORGED`));
    expect(out).toBe(`massgen: error: provider said: ${SHOWN}␍FORGED\n`);
  });
});
