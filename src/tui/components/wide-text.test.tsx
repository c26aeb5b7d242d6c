import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { RunEvent } from '../../types/events.js';
import { textWidth } from '../../util/text.js';
import { threeAgentRun } from '../fixtures.test-support.js';
import { renderAt } from '../render-helpers.test-support.js';
import { initialUiState, initialViewState, reduceViewAll, type UiState } from '../view-state.js';
import { renderFinalScreen } from './final-screen.js';
import { LiveView } from './live-view.js';

/*
 * The fixture run with agent ids, answers, reasons and streamed text in Chinese, Japanese, Korean,
 * emoji (a ZWJ family, flags) and combining marks: every panel keeps its shape, the tables line up by
 * terminal columns and no character is cut in half.
 */

afterEach(() => cleanup());

const FAMILY = '👨‍👩‍👧‍👦';
const IDS: Record<string, string> = { gpt: '中文助手', claude: `${FAMILY}家族`, gemini: 'e\u0301tude🇯🇵' };
const PARIS = '巴黎 パリ 🇫🇷 Pa\u0301ris';
const STREAM =
  '東京は日本の首都です。京都は千年以上にわたって都でした。' +
  `${FAMILY}🇯🇵🇫🇷 北京是中国的首都，也是政治和文化中心。한국어 텍스트도 있습니다. `;

/** The fixture's events with the ids and texts swapped for wide and combining ones. */
function wideRun(until: Parameters<typeof threeAgentRun>[0]): { events: RunEvent[]; now: number } {
  const b = threeAgentRun(until);
  let json = JSON.stringify(b.events);
  for (const [id, wide] of Object.entries(IDS))
    json = json.replace(new RegExp(`\\b${id}\\b(?![-\\w])`, 'g'), wide);
  json = json.replace(/Paris/g, PARIS).replace(/the capital since the 10th century\./, STREAM.repeat(3));
  return { events: JSON.parse(json) as RunEvent[], now: b.now() };
}

function frameOf(
  until: Parameters<typeof threeAgentRun>[0],
  columns: number,
  ui: Partial<UiState> = {},
  rows = 40,
) {
  const run = wideRun(until);
  const view = reduceViewAll(initialViewState(), run.events);
  const el = (
    <LiveView view={view} ui={{ ...initialUiState(), ...ui }} columns={columns} rows={rows} now={run.now} />
  );
  return (renderAt(el, columns).lastFrame() ?? '').split('\n');
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The display column at which each occurrence of one of `chars` starts. */
function columnsOf(line: string, chars: string): number[] {
  const found: number[] = [];
  let column = 0;
  for (const { segment } of segmenter.segment(line)) {
    if (chars.includes(segment)) found.push(column);
    column += textWidth(segment);
  }
  return found;
}

/** A character cut in half: a lone ZWJ or regional indicator, or a cluster starting with a mark or ZWJ. */
function brokenCharacters(line: string): string[] {
  return [...segmenter.segment(line)]
    .map((s) => s.segment)
    .filter((s) => /^[\u200D\p{M}]/u.test(s) || /^\p{Regional_Indicator}$/u.test(s) || /\u200D$/.test(s));
}

function expectWellFormed(lines: string[], columns: number): void {
  for (const line of lines) {
    expect(textWidth(line), line).toBeLessThanOrEqual(columns);
    expect(brokenCharacters(line), line).toEqual([]);
  }
}

describe('the live view with CJK, emoji and combining marks', () => {
  it('side-by-side panels keep their borders in the same columns on every row', () => {
    for (const stage of ['streaming', 'votingAndDrop'] as const) {
      const columns = 120;
      const lines = frameOf(stage, columns);
      expectWellFormed(lines, columns);
      const top = lines.findIndex((l) => l.includes('╭'));
      const bottom = lines.findIndex((l, i) => i > top && l.includes('╰'));
      expect(top).toBeGreaterThan(0);
      expect(bottom).toBeGreaterThan(top + 3);
      const corners = columnsOf(lines[top] ?? '', '╭╮');
      expect(corners).toHaveLength(6);
      expect(columnsOf(lines[bottom] ?? '', '╰╯')).toEqual(corners);
      for (const row of lines.slice(top + 1, bottom)) expect(columnsOf(row, '│'), row).toEqual(corners);
      const frame = lines.join('\n');
      for (const id of Object.values(IDS)) expect(frame).toContain(id);
    }
  });

  it('the streamed CJK text fills the panel by columns, nothing of it lost', () => {
    const lines = frameOf('streaming', 120);
    // The first panel's body: what is between its borders, row after row.
    const inner = lines
      .filter((l) => l.startsWith('│'))
      .map((l) => /^│ (.*?) *│/u.exec(l)?.[1] ?? '')
      .join('');
    const squeeze = (text: string) => text.replace(/\s+/g, '');
    expect(squeeze(inner)).toContain(squeeze(STREAM + STREAM));
    // Every full row is filled to within one column (a wide character that would not fit moves down).
    const rows = lines.filter((l) => /^│ [東に国テ]/u.test(l)).map((l) => /^│ (.*?)│/u.exec(l)?.[1] ?? '');
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows.slice(0, -1))
      expect(textWidth(row.trimEnd())).toBeGreaterThanOrEqual(textWidth(row) - 2);
  });

  it('stacked panels at 60 columns, the timeline and the votes screen stay in shape', () => {
    expectWellFormed(frameOf('votingAndDrop', 60), 60);
    // One row per agent when stacked panels do not fit the height.
    for (const columns of [60, 61, 75]) expectWellFormed(frameOf('streaming', columns, {}, 12), columns);

    const timeline = frameOf('votingAndDrop', 90, { mode: 'table' });
    expectWellFormed(timeline, 90);
    // The event text starts in the same column on every row that names an agent.
    const rows = timeline.filter((l) => /^\s+\d+\.\ds {2}/.test(l));
    expect(rows.length).toBeGreaterThan(5);
    const starts = new Set(rows.map((l) => textWidth(/^\s+\d+\.\ds {2}\S+\s+/.exec(l)?.[0] ?? '')));
    expect(starts.size).toBe(1);

    const votes = frameOf('votingAndDrop', 90, { mode: 'votes' });
    expectWellFormed(votes, 90);
    const heads = votes.filter((l) => l.includes(' → agent'));
    expect(heads).toHaveLength(3);
    expect(new Set(heads.map((l) => columnsOf(l, '→')[0])).size).toBe(1);
    expect(new Set(heads.map((l) => columnsOf(l, '(')[0])).size).toBe(1);
  });

  it('the final screen lines its agents up by columns', () => {
    const run = wideRun('finish');
    const screen = renderFinalScreen(reduceViewAll(initialViewState(), run.events), 100, run.now).split('\n');
    expectWellFormed(screen, 100);
    const agentRows = screen.filter((l) => / {2}(done|voted|dropped)/.test(l));
    expect(agentRows).toHaveLength(3);
    const badgeColumn = (l: string) => textWidth(/^(.*?) {2}(done|voted|dropped)/.exec(l)?.[1] ?? '');
    expect(new Set(agentRows.map(badgeColumn)).size).toBe(1);
  });
});
