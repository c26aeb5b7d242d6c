import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunEvent } from '../types/events.js';

/** One agent's first answer in a run, and what it took to get there. */
export interface FirstAnswer {
  agentId: string;
  content: string;
  /** Tokens (input + output) of this agent's model calls up to and including that answer. */
  tokens: number;
  costUsd: number;
  /** From the run's start to the answer. */
  latencyMs: number;
}

/** What a run's events tell the eval beyond its result line. */
export interface RunFacts {
  /** The agents, in config order (from `run.started`). */
  agents: string[];
  /** Each agent's first `answer.submitted`; agents that never answered are missing. */
  firstAnswers: Map<string, FirstAnswer>;
  /** Answer rounds: the most answers any one agent submitted. */
  rounds: number;
  /** Votes counted (`vote.cast` with `counted: true`). */
  votes: number;
}

/** Reads the facts of a run from its events (in order). */
export function runFacts(events: Iterable<RunEvent>): RunFacts {
  let agents: string[] = [];
  let startedAt: number | null = null;
  const spent = new Map<string, { tokens: number; costUsd: number }>();
  const firstAnswers = new Map<string, FirstAnswer>();
  const answerCount = new Map<string, number>();
  let votes = 0;
  for (const event of events) {
    if (event.type === 'run.started') {
      startedAt = event.ts;
      agents = event.agents.map((a) => a.agentId);
    } else if (event.type === 'agent.step.finished') {
      const sum = spent.get(event.agentId) ?? { tokens: 0, costUsd: 0 };
      sum.tokens += event.usage.inputTokens + event.usage.outputTokens;
      sum.costUsd += event.costUsd;
      spent.set(event.agentId, sum);
    } else if (event.type === 'answer.submitted') {
      answerCount.set(event.agentId, (answerCount.get(event.agentId) ?? 0) + 1);
      if (!firstAnswers.has(event.agentId)) {
        const sum = spent.get(event.agentId) ?? { tokens: 0, costUsd: 0 };
        firstAnswers.set(event.agentId, {
          agentId: event.agentId,
          content: event.content,
          tokens: sum.tokens,
          costUsd: sum.costUsd,
          latencyMs: Math.max(0, event.ts - (startedAt ?? event.ts)),
        });
      }
    } else if (event.type === 'vote.cast' && event.counted) {
      votes++;
    }
  }
  return { agents, firstAnswers, rounds: Math.max(0, ...answerCount.values()), votes };
}

/**
 * The facts of the run logged in `logDir` (its `events.jsonl`), or null when the folder cannot be read
 * here (logging was off, or the run was on a queue worker's machine). A last line cut off is ignored.
 */
export async function readRunFacts(logDir: string | null): Promise<RunFacts | null> {
  if (logDir === null) return null;
  let text: string;
  try {
    text = await readFile(path.join(logDir, 'events.jsonl'), 'utf8');
  } catch {
    return null;
  }
  const events: RunEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as RunEvent);
    } catch {
      // A line cut off by a crash mid-write.
    }
  }
  return runFacts(events);
}
