import { describe, expect, it } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { formatCoordinationTable, MAX_GRID_COLUMNS } from './coordination-table.js';
import { textWidth, wrapText } from '../util/text.js';

function stamp(inputs: (readonly [number, RunEventInput])[]): RunEvent[] {
  return inputs.map(([at, input], seq) => ({ ...input, runId: 'r', seq, ts: 1_000_000 + at }) as RunEvent);
}

const agents = [
  { agentId: 'alice', anonymousId: 'agent1', backendType: 'openai', model: 'm' },
  {
    agentId: 'a-rather-long-agent-identifier-name',
    anonymousId: 'agent2',
    backendType: 'openai',
    model: 'm',
  },
];

const events = stamp([
  [0, { type: 'run.started', question: 'Why?', agents, settings: {} }],
  [0, { type: 'agent.turn.started', agentId: 'alice', turn: 1, visibleAnswers: [] }],
  [5, { type: 'agent.text.delta', agentId: 'alice', phase: 'coordination', kind: 'text', text: 'hidden' }],
  [
    1234,
    { type: 'answer.submitted', agentId: 'alice', anonymousId: 'agent1', label: 'agent1.1', content: 'c' },
  ],
  [1234, { type: 'votes.reset', causedBy: 'agent1.1', clearedVoters: [] }],
  [
    2000,
    {
      type: 'vote.cast',
      agentId: 'a-rather-long-agent-identifier-name',
      targetAgentId: 'alice',
      targetAnonymousId: 'agent1',
      targetLabel: 'agent1.1',
      reason: 'a long reason '.repeat(8) + 'Supercalifragilisticexpialidociousandthensomemoretobreak',
      counted: true,
    },
  ],
  [2100, { type: 'agent.turn.restarted', agentId: 'alice', reason: 'new answer arrived' }],
  [
    2200,
    {
      type: 'coordination.finished',
      reason: 'consensus',
      winnerId: 'alice',
      winnerLabel: 'agent1.1',
      tallies: { alice: 1 },
    },
  ],
]);

describe('formatCoordinationTable', () => {
  it('has one column per agent, one row per significant event and aligned, wrapped cells', () => {
    const table = formatCoordinationTable(events);
    const lines = table.trimEnd().split('\n');
    const grid = lines.slice(lines.findIndex((l) => l.startsWith('time (s)')));
    const header = grid[0] ?? '';
    expect(header).toContain('alice (agent1)');
    expect(header).toContain('a-rather-long-agent-identifier-name');
    expect(table).toContain('(agent2)');
    expect(table).not.toContain('hidden');
    expect(table).toContain('Question: Why?');

    // Every line shares the time column's separator position, and no line is wider than the grid.
    const timeEnd = header.indexOf(' | ');
    const rule = grid[grid.findIndex((l) => l.startsWith('-'))] ?? '';
    for (const line of grid) {
      if (line.startsWith('-')) continue;
      expect(line.slice(timeEnd, timeEnd + 3)).toBe(' | ');
      expect(line.length).toBeLessThanOrEqual(rule.length);
    }
    // The agent columns line up: the second column's separator sits where the header's does.
    const secondSep = header.indexOf(' | ', timeEnd + 3);
    const voteLines = grid.filter((l) => l.includes('VOTE agent') || l.includes('long reason'));
    expect(voteLines.length).toBeGreaterThan(1);
    for (const line of voteLines) expect(line.slice(secondSep, secondSep + 3)).toBe(' | ');

    const answerRow = grid.find((l) => l.includes('ANSWER agent1.1')) ?? '';
    expect(answerRow.trimStart().startsWith('1.2')).toBe(true);
    expect(table).toContain('VOTES RESET by agent1.1');
    expect(table).toContain('COORDINATION FINISHED (consensus); winner alice (agent1.1)');
    expect(table).toContain('turn restarted: new');
    expect(grid.filter((l) => l.includes('turn 1 started'))).toHaveLength(1);
  });

  it('lines up by terminal columns with CJK and emoji ids and text, and cuts no character in half', () => {
    const family = '👨‍👩‍👧‍👦';
    const wide = [
      { agentId: '中文助手', anonymousId: 'agent1', backendType: 'openai', model: 'm' },
      { agentId: `${family}家族🇯🇵`, anonymousId: 'agent2', backendType: 'openai', model: 'm' },
    ];
    const table = formatCoordinationTable(
      stamp([
        [0, { type: 'run.started', question: '東京は？', agents: wide, settings: {} }],
        [
          10,
          {
            type: 'answer.submitted',
            agentId: '中文助手',
            anonymousId: 'agent1',
            label: 'agent1.1',
            content: 'c',
          },
        ],
        [
          20,
          {
            type: 'vote.cast',
            agentId: `${family}家族🇯🇵`,
            targetAgentId: '中文助手',
            targetAnonymousId: 'agent1',
            targetLabel: 'agent1.1',
            reason: `東京は日本の首都です。${family}🇯🇵🇫🇷 e\u0301te\u0301 `.repeat(4),
            counted: true,
          },
        ],
      ]),
    );
    const lines = table.trimEnd().split('\n');
    const grid = lines.slice(lines.findIndex((l) => l.startsWith('time (s)')));
    const rule = grid.find((l) => l.startsWith('-')) ?? '';
    const separators = (line: string) => {
      const at: number[] = [];
      let column = 0;
      for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(line)) {
        if (segment === '|') at.push(column);
        column += textWidth(segment);
      }
      return at;
    };
    const ruleAt = separators(rule.replace(/\+/g, '|'));
    expect(ruleAt).toHaveLength(2);
    const voteRows = grid.filter((l) => !l.startsWith('-') && separators(l).length === 2);
    expect(voteRows.length).toBeGreaterThan(4);
    for (const line of voteRows) {
      expect(separators(line), line).toEqual(ruleAt);
      expect(textWidth(line)).toBeLessThanOrEqual(textWidth(rule));
      expect(line).not.toMatch(/\u200D(?:\s|$)|(?:^|\s)\p{M}/u);
    }
  });

  it('lists the events in one agent column instead of a grid for a large team, in size linear in the rows', () => {
    const team = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        agentId: `a${i}`,
        anonymousId: `agent${i + 1}`,
        backendType: 'openai',
        model: 'm',
      }));
    const run = (n: number) =>
      stamp([
        [0, { type: 'run.started', question: 'q', agents: team(n), settings: {} }],
        ...team(n).map(
          (a, i) =>
            [
              10 + i,
              {
                type: 'answer.submitted',
                agentId: a.agentId,
                anonymousId: a.anonymousId,
                label: `${a.anonymousId}.1`,
                content: 'c',
              },
            ] as const,
        ),
        [5000, { type: 'votes.reset', causedBy: 'agent1.1', clearedVoters: [] }],
      ]);
    // Up to the limit, the grid: one column per agent.
    const grid = formatCoordinationTable(run(MAX_GRID_COLUMNS));
    expect(grid).toContain(`a${MAX_GRID_COLUMNS - 1} (agent${MAX_GRID_COLUMNS})`);
    expect(grid).not.toMatch(/\| agent +\| event/);

    const big = 1000;
    const table = formatCoordinationTable(run(big));
    const lines = table.trimEnd().split('\n');
    const header = lines.find((l) => l.startsWith('time (s)')) ?? '';
    expect(header).toMatch(/^time \(s\) \| agent +\| event$/);
    const row = lines.find((l) => l.includes('ANSWER agent1000.1')) ?? '';
    expect(row).toMatch(/^ +1\.0 \| a999 \(agent1000\) +\| ANSWER agent1000\.1$/);
    // Run-wide rows still span the table.
    expect(lines.find((l) => l.includes('VOTES RESET'))).toMatch(/^ +5\.0 \| VOTES RESET by agent1\.1$/);
    // One line per row: a thousand agents do not make a thousand columns.
    expect(lines.length).toBeLessThan(big + 10);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(150);
  });

  it('handles an empty stream', () => {
    expect(formatCoordinationTable([])).toBe('No events recorded.\n');
  });
});

describe('wrapText', () => {
  it('wraps at spaces and splits long words', () => {
    expect(wrapText('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('x\ny', 10)).toEqual(['x', 'y']);
    expect(wrapText('', 10)).toEqual(['']);
  });

  it('shows the tool events that change a run, and leaves ordinary tool calls to the events file', () => {
    const call = {
      agentId: 'alice',
      phase: 'coordination' as const,
      callId: 'c',
      durationMs: 1,
      isError: false,
    };
    const table = formatCoordinationTable(
      stamp([
        [0, { type: 'run.started', question: 'q', agents, settings: {} }],
        [
          1,
          {
            type: 'planning.tools.classified',
            analysisAgentId: null,
            decisions: [
              { agentId: 'alice', toolName: 'read', allowed: true, source: 'annotation' },
              { agentId: 'alice', toolName: 'write', allowed: false, source: 'annotation' },
            ],
          },
        ],
        [
          2,
          {
            type: 'mcp.server.failed',
            agentId: 'alice',
            server: 'fs',
            message: 'exited',
            retryInSeconds: 30,
          },
        ],
        [3, { type: 'tool.call.finished', ...call, toolName: 'read', result: 'r' }],
        [4, { type: 'tool.call.finished', ...call, toolName: 'write', result: 'planned', deferred: true }],
        [
          5,
          { type: 'tool.approval.resolved', agentId: 'alice', callId: 'd', toolName: 'rm', approved: false },
        ],
      ]),
    );
    expect(table).toContain('PLANNING MODE: 1 tool(s) deferred to the final presenter (write)');
    expect(table).toContain('MCP "fs" FAILED: exited');
    expect(table).toContain('planned write (not');
    expect(table).toContain('rm DENIED');
    expect(table).not.toMatch(/\bread\b.*\|/);
  });
});
