import type { RunEvent, RunEventInput } from '../types/events.js';
import { emptyUsage, type TokenUsage } from '../types/usage.js';

/** Builds a run's events, stamping `runId`, `seq` and `ts` (each event `stepMs` after the last). */
export function eventBuilder(options: { runId?: string; startTs?: number; stepMs?: number } = {}) {
  const runId = options.runId ?? 'run_test';
  let seq = 0;
  let ts = options.startTs ?? 1_700_000_000_000;
  const stepMs = options.stepMs ?? 100;
  const events: RunEvent[] = [];
  const emit = (input: RunEventInput, advanceMs = stepMs): RunEvent => {
    ts += advanceMs;
    const event = { ...input, runId, seq: seq++, ts } as RunEvent;
    events.push(event);
    return event;
  };
  return { emit, events, now: () => ts };
}

export const usage = (input: number, output: number): TokenUsage => ({
  ...emptyUsage(),
  inputTokens: input,
  outputTokens: output,
});

export const QUESTION = 'What is the capital of France, and why has it been the capital for so long?';

export const AGENTS = [
  {
    agentId: 'gpt',
    anonymousId: 'agent1',
    backendType: 'openai',
    model: 'gpt-4o',
    price: { inputPerMillion: 2.5, outputPerMillion: 10 },
  },
  {
    agentId: 'claude',
    anonymousId: 'agent2',
    backendType: 'claude',
    model: 'claude-sonnet-4',
    price: { inputPerMillion: 3, outputPerMillion: 15 },
  },
  { agentId: 'gemini', anonymousId: 'agent3', backendType: 'gemini', model: 'gemini-2.5-flash', price: null },
];

type Builder = ReturnType<typeof eventBuilder>;

/**
 * A full three-agent run, in stages so tests can stop anywhere: a tool call, a retry that discards
 * partial text, a failure, an update, a restart, a stale vote, a drop, a presentation.
 */
export const stages = {
  start(b: Builder): void {
    b.emit({ type: 'run.started', question: QUESTION, agents: AGENTS, settings: {} });
    for (const { agentId } of AGENTS) {
      b.emit({ type: 'agent.turn.started', agentId, turn: 1, visibleAnswers: [] });
      b.emit({ type: 'agent.step.started', agentId, phase: 'coordination', step: 1 });
    }
  },
  /** gpt streams text and looks something up; claude's first call fails mid-stream and is retried. */
  streaming(b: Builder): void {
    b.emit({ type: 'agent.text.start', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'text',
      text: 'Paris has been ',
    });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'gpt',
      phase: 'coordination',
      kind: 'text',
      text: 'the capital since the 10th century.',
    });
    b.emit({ type: 'agent.text.end', agentId: 'gpt', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'tool.call.started',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'c1',
      toolName: 'lookup',
      arguments: { q: 'capital of France' },
    });
    b.emit({ type: 'agent.text.start', agentId: 'claude', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'claude',
      phase: 'coordination',
      kind: 'text',
      text: 'Partial gar',
    });
    b.emit({
      type: 'agent.step.retrying',
      agentId: 'claude',
      phase: 'coordination',
      attempt: 1,
      delayMs: 2000,
      error: { code: 'provider_error', message: 'HTTP 529 overloaded' },
    });
  },
  /** gemini's first turn fails; gpt's tool returns and it answers; claude gets the update and answers. */
  firstAnswers(b: Builder): void {
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gemini',
      turn: 1,
      outcome: 'failed',
      durationMs: 800,
      error: { code: 'provider_error', message: 'HTTP 500 internal error' },
      consecutiveFailures: 1,
    });
    b.emit({
      type: 'tool.call.finished',
      agentId: 'gpt',
      phase: 'coordination',
      callId: 'c1',
      toolName: 'lookup',
      result: 'Paris',
      isError: false,
      durationMs: 300,
    });
    b.emit({
      type: 'agent.step.finished',
      agentId: 'gpt',
      phase: 'coordination',
      step: 1,
      finishReason: 'tool-calls',
      usage: usage(1200, 300),
      costUsd: 0.006,
    });
    b.emit({
      type: 'answer.submitted',
      agentId: 'gpt',
      anonymousId: 'agent1',
      label: 'agent1.1',
      content: 'Paris. It has been the capital since Hugh Capet (987).',
    });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gpt',
      turn: 1,
      outcome: 'answered',
      durationMs: 900,
      consecutiveFailures: 0,
    });
    b.emit({ type: 'agent.turn.started', agentId: 'gemini', turn: 2, visibleAnswers: ['agent1.1'] });
    b.emit({ type: 'agent.step.started', agentId: 'gemini', phase: 'coordination', step: 1 });
    b.emit({ type: 'agent.text.start', agentId: 'claude', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'claude',
      phase: 'coordination',
      kind: 'text',
      text: 'Paris, the political and cultural centre of France.',
    });
    b.emit({ type: 'agent.text.end', agentId: 'claude', phase: 'coordination', kind: 'text' });
    b.emit({
      type: 'agent.step.finished',
      agentId: 'claude',
      phase: 'coordination',
      step: 1,
      finishReason: 'tool-calls',
      usage: usage(1500, 400),
      costUsd: 0.0105,
    });
    b.emit({ type: 'agent.update.injected', agentId: 'claude', labels: ['agent1.1'] });
    b.emit({ type: 'agent.step.started', agentId: 'claude', phase: 'coordination', step: 2 });
    b.emit({
      type: 'answer.submitted',
      agentId: 'claude',
      anonymousId: 'agent2',
      label: 'agent2.1',
      content: 'Paris — the capital since 987, for its central position on the Seine.',
    });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'claude',
      turn: 1,
      outcome: 'answered',
      durationMs: 1500,
      consecutiveFailures: 0,
    });
  },
  /** gemini restarts on the new answer; gpt votes for claude; gemini fails again and is dropped. */
  votingAndDrop(b: Builder): void {
    b.emit({ type: 'agent.turn.restarted', agentId: 'gemini', reason: 'new answer' });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gemini',
      turn: 2,
      outcome: 'aborted',
      durationMs: 200,
      consecutiveFailures: 0,
    });
    b.emit({ type: 'agent.turn.started', agentId: 'gpt', turn: 2, visibleAnswers: ['agent1.1', 'agent2.1'] });
    b.emit({ type: 'agent.step.started', agentId: 'gpt', phase: 'coordination', step: 1 });
    b.emit({
      type: 'agent.step.finished',
      agentId: 'gpt',
      phase: 'coordination',
      step: 1,
      finishReason: 'tool-calls',
      usage: usage(1400, 60),
      costUsd: 0.0041,
    });
    b.emit({
      type: 'vote.cast',
      agentId: 'gpt',
      targetAgentId: 'claude',
      targetAnonymousId: 'agent2',
      targetLabel: 'agent2.1',
      reason: 'More complete: it explains why.',
      counted: true,
    });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gpt',
      turn: 2,
      outcome: 'voted',
      durationMs: 400,
      consecutiveFailures: 0,
    });
    b.emit({
      type: 'agent.turn.started',
      agentId: 'gemini',
      turn: 3,
      visibleAnswers: ['agent1.1', 'agent2.1'],
    });
    b.emit({ type: 'agent.step.started', agentId: 'gemini', phase: 'coordination', step: 1 });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'gemini',
      turn: 3,
      outcome: 'failed',
      durationMs: 300,
      error: { code: 'provider_error', message: 'HTTP 500 internal error' },
      consecutiveFailures: 2,
    });
    b.emit({
      type: 'agent.dropped',
      agentId: 'gemini',
      reason: '2 consecutive failed turns; last: HTTP 500 internal error',
    });
    b.emit({
      type: 'agent.turn.started',
      agentId: 'claude',
      turn: 2,
      visibleAnswers: ['agent1.1', 'agent2.1'],
    });
    b.emit({ type: 'agent.step.started', agentId: 'claude', phase: 'coordination', step: 1 });
    b.emit({
      type: 'vote.cast',
      agentId: 'claude',
      targetAgentId: 'gpt',
      targetAnonymousId: 'agent1',
      targetLabel: 'agent1.1',
      reason: 'Short and right.',
      counted: false,
    });
    b.emit({ type: 'agent.update.injected', agentId: 'claude', labels: ['agent2.1'] });
    b.emit({ type: 'agent.step.started', agentId: 'claude', phase: 'coordination', step: 2 });
    b.emit({
      type: 'agent.step.finished',
      agentId: 'claude',
      phase: 'coordination',
      step: 2,
      finishReason: 'tool-calls',
      usage: usage(1800, 50),
      costUsd: 0.0062,
    });
    b.emit({
      type: 'vote.cast',
      agentId: 'claude',
      targetAgentId: 'claude',
      targetAnonymousId: 'agent2',
      targetLabel: 'agent2.1',
      reason: 'It answers both parts of the question.',
      counted: true,
    });
    b.emit({
      type: 'agent.turn.finished',
      agentId: 'claude',
      turn: 2,
      outcome: 'voted',
      durationMs: 700,
      consecutiveFailures: 0,
    });
  },
  /** Consensus on claude; it presents the final answer. */
  presentation(b: Builder): void {
    b.emit({
      type: 'coordination.finished',
      reason: 'consensus',
      winnerId: 'claude',
      winnerLabel: 'agent2.1',
      tallies: { claude: 2 },
    });
    b.emit({ type: 'presentation.started', agentId: 'claude', mode: 'present' });
    b.emit({ type: 'agent.step.started', agentId: 'claude', phase: 'presentation', step: 1 });
    b.emit({ type: 'agent.text.start', agentId: 'claude', phase: 'presentation', kind: 'text' });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'claude',
      phase: 'presentation',
      kind: 'text',
      text: 'Paris is the capital ',
    });
    b.emit({
      type: 'agent.text.delta',
      agentId: 'claude',
      phase: 'presentation',
      kind: 'text',
      text: 'of France.\nIt has been since 987.',
    });
  },
  finish(b: Builder): void {
    b.emit({ type: 'agent.text.end', agentId: 'claude', phase: 'presentation', kind: 'text' });
    b.emit({
      type: 'agent.step.finished',
      agentId: 'claude',
      phase: 'presentation',
      step: 1,
      finishReason: 'stop',
      usage: usage(2500, 120),
      costUsd: 0.0093,
    });
    b.emit({
      type: 'presentation.finished',
      agentId: 'claude',
      label: 'agent2.final',
      content: 'Paris is the capital of France.\nIt has been since 987.',
      fallback: false,
    });
    b.emit({
      type: 'run.finished',
      status: 'completed',
      exitCode: 0,
      winnerId: 'claude',
      finalAnswer: 'Paris is the capital of France.\nIt has been since 987.',
      durationMs: 9000,
      usage: { gpt: usage(2600, 360), claude: usage(5800, 570), gemini: usage(0, 0) },
      costUsd: { gpt: 0.0101, claude: 0.026, gemini: 0 },
    });
  },
};

/** The whole run, or its stages up to and including `until`. */
export function threeAgentRun(until: keyof typeof stages = 'finish'): Builder {
  const b = eventBuilder();
  for (const [name, stage] of Object.entries(stages)) {
    stage(b);
    if (name === until) break;
  }
  return b;
}

/**
 * Tools in a two-agent run (gpt, claude): MCP servers come up (one fails), planning mode classifies
 * the tools, gpt's `write_file` is only recorded for the plan, and claude's calls wait for approval —
 * `read_file` (c2) and then, from gpt, `fetch` (c3). Nothing is answered yet.
 */
export function toolRun(): Builder {
  const b = eventBuilder();
  b.emit({ type: 'run.started', question: QUESTION, agents: AGENTS.slice(0, 2), settings: {} });
  b.emit({
    type: 'mcp.server.ready',
    agentId: 'gpt',
    server: 'fs',
    tools: ['a', 'b', 'c', 'd', 'e'],
    durationMs: 300,
  });
  b.emit({
    type: 'mcp.server.failed',
    agentId: 'claude',
    server: 'web',
    message: 'spawn npx ENOENT',
    retryInSeconds: 30,
  });
  b.emit({
    type: 'planning.tools.classified',
    decisions: [
      { agentId: 'gpt', toolName: 'read_file', allowed: true, source: 'annotation' },
      { agentId: 'gpt', toolName: 'write_file', allowed: false, source: 'analysis' },
      { agentId: 'claude', toolName: 'read_file', allowed: true, source: 'annotation' },
      { agentId: 'claude', toolName: 'write_file', allowed: false, source: 'analysis' },
    ],
    analysisAgentId: 'gpt',
  });
  for (const { agentId } of AGENTS.slice(0, 2)) {
    b.emit({ type: 'agent.turn.started', agentId, turn: 1, visibleAnswers: [] });
    b.emit({ type: 'agent.step.started', agentId, phase: 'coordination', step: 1 });
  }
  b.emit({
    type: 'tool.call.started',
    agentId: 'gpt',
    phase: 'coordination',
    callId: 'c1',
    toolName: 'write_file',
    arguments: { path: 'notes.txt', content: 'Paris' },
  });
  b.emit({
    type: 'tool.call.finished',
    agentId: 'gpt',
    phase: 'coordination',
    callId: 'c1',
    toolName: 'write_file',
    result: 'write_file was recorded for the plan',
    isError: false,
    durationMs: 0,
    deferred: true,
  });
  const held = (agentId: string, callId: string, toolName: string, args: unknown) => {
    b.emit({ type: 'tool.call.started', agentId, phase: 'coordination', callId, toolName, arguments: args });
    b.emit({
      type: 'tool.approval.requested',
      agentId,
      phase: 'coordination',
      callId,
      toolName,
      arguments: args,
    });
  };
  held('claude', 'c2', 'read_file', { path: 'report.md' });
  held('gpt', 'c3', 'fetch', { url: 'https://example.com/paris' });
  return b;
}
