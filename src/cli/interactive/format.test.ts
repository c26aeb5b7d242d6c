import { describe, expect, it } from 'vitest';
import type { SessionTurnSummary } from '../../app/sessions.js';
import { emptyUsage } from '../../types/usage.js';
import { textWidth } from '../../util/text.js';
import { formatHistory, formatSessionTable, formatStatus } from './format.js';
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
  unfinished: false,
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

describe('interactive tables line up by terminal columns', () => {
  const FAMILY = '👨‍👩‍👧‍👦';
  const clusters = (text: string) =>
    [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);
  /** The display column where `needle` starts in `line`. */
  const columnOf = (line: string, needle: string) => textWidth(line.slice(0, line.indexOf(needle)));

  it('/status: agent ids in Chinese, Japanese and emoji, with combining marks', () => {
    const ids = ['中文助手', 'エージェント', `${FAMILY}🇯🇵`, 'e\u0301tude', 'gpt'];
    const text = formatStatus(
      {
        sessionId: 'session_1',
        sessionDir: null,
        agents: ids.map((id) => ({ id, backend: 'openai', model: 'gpt-4o' })),
        turnCount: 0,
        usage: {},
        totalUsage: emptyUsage(),
        costUsd: {},
        totalCostUsd: 0,
        pricedAgents: null,
      },
      '/',
    );
    const rows = text.split('\n').filter((l) => l.includes('openai/gpt-4o'));
    expect(rows).toHaveLength(ids.length);
    expect(new Set(rows.map((l) => columnOf(l, 'openai/')))).toEqual(
      new Set([2 + textWidth('エージェント') + 2]),
    );
  });

  it('--list-sessions: wide ids and first questions, cut between characters', () => {
    const question = `${'東京は日本の首都です。'.repeat(4)} ${FAMILY}${FAMILY}🇯🇵🇫🇷 e\u0301te\u0301`;
    const listing = (id: string, firstQuestion: string, turnCount: number) => ({
      id,
      dir: `/s/${id}`,
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      configSource: 'c.yaml',
      agents: [],
      turnCount,
      firstQuestion,
    });
    const text = formatSessionTable(
      [
        listing('会话_一', question, 3),
        listing('session_2', `${'🇯🇵'.repeat(40)}`, 12),
        listing('s3', 'e\u0301'.repeat(80), 1),
      ],
      [],
      '/s',
    );
    const [header = '', ...rows] = text.trimEnd().split('\n');
    expect(rows).toHaveLength(3);
    const turnsEnd = columnOf(header, 'TURNS') + 'TURNS'.length;
    const questionAt = columnOf(header, 'FIRST QUESTION');
    const questions = [question, '🇯🇵'.repeat(40), 'e\u0301'.repeat(80)];
    rows.forEach((row, i) => {
      const [, upToTurns = '', shown = ''] = /^(\S+\s+\S+ \S+\s+\d+) {2}(.*)$/u.exec(row) ?? [];
      // The right-aligned turn count ends, and the question starts, under their headers.
      expect(textWidth(upToTurns), row).toBe(turnsEnd);
      expect(textWidth(upToTurns) + 2, row).toBe(questionAt);
      // Cut to 70 columns, never inside a character.
      expect(textWidth(shown)).toBeLessThanOrEqual(70);
      const kept = clusters(shown.replace(/…$/, ''));
      expect(kept).toEqual(clusters(questions[i] ?? '').slice(0, kept.length));
    });
    expect(rows[1]).toContain('🇯🇵'.repeat(34) + '…');
  });
});
