import { Orchestrator } from '../../src/coordination/orchestrator.js';
import type { CoordinationSettings, HistoryTurn } from '../../src/coordination/settings.js';
import { EventRecorder } from '../../src/testing/event-recorder.js';
import {
  ScriptedBackend,
  type ScriptStep,
  type RecordedRequest,
  gate,
} from '../../src/testing/scripted-backend.js';
import type { RunEvent } from '../../src/types/events.js';
import type { ToolRegistry } from '../../src/types/tool.js';
import type { ModelPrice } from '../../src/types/usage.js';

/** An ordinary tool for scenarios: lets a scripted agent reach a step boundary without a workflow call. */
export const lookupTool: ToolRegistry & { calls: unknown[] } = Object.assign(
  {
    list: () => [
      {
        name: 'lookup',
        description: 'Look something up.',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ],
    execute: async (call: { arguments: unknown }) => {
      lookupTool.calls.push(call.arguments);
      return { content: 'lookup result: nothing special' };
    },
  },
  { calls: [] as unknown[] },
);

/** A step that calls `lookup` once `g` opens (holding the agent mid-turn until then). */
export const lookupAfter = (g: { wait: () => Promise<void> }): ScriptStep => ({
  waitFor: g.wait,
  toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }],
});

export interface ScenarioOptions {
  settings?: Partial<CoordinationSettings>;
  /** Called for every event as it happens (open gates here). */
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  tools?: boolean;
  history?: HistoryTurn[];
  question?: string;
  /** Per-agent prices for cost accounting. */
  prices?: Record<string, ModelPrice>;
}

/** Runs agents with scripted backends; returns the events and the backends (for request checks). */
export async function runScenario(scripts: Record<string, ScriptStep[]>, options: ScenarioOptions = {}) {
  const backends: Record<string, ScriptedBackend> = {};
  for (const [id, steps] of Object.entries(scripts))
    backends[id] = new ScriptedBackend(steps, { model: `model-${id}` });
  const orchestrator = new Orchestrator({
    agents: Object.entries(backends).map(([id, backend]) => ({
      id,
      backend,
      ...(options.tools ? { tools: lookupTool } : {}),
      ...(options.prices?.[id] ? { price: options.prices[id] } : {}),
      maxRetries: 2,
    })),
    settings: { agentTurnTimeoutMs: 5_000, orchestratorTimeoutMs: 10_000, ...options.settings },
  });
  const recorder = new EventRecorder();
  for await (const event of orchestrator.run(options.question ?? 'What is the answer?', {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.history ? { history: options.history } : {}),
  })) {
    recorder.events.push(event);
    options.onEvent?.(event);
  }
  return { recorder, backends, finished: recorder.finished };
}

/** Opens a gate when the predicate first matches an event. */
export function gateOn(predicate: (event: RunEvent) => boolean) {
  const g = gate();
  return {
    wait: g.wait,
    get isOpen() {
      return g.isOpen;
    },
    check: (event: RunEvent) => {
      if (!g.isOpen && predicate(event)) g.open();
    },
  };
}

export const answered = (agentId: string) => (e: RunEvent) =>
  e.type === 'answer.submitted' && e.agentId === agentId;
export const countedVote = (agentId: string) => (e: RunEvent) =>
  e.type === 'vote.cast' && e.agentId === agentId && e.counted;

/** Text of every message of a recorded request, joined (for "did the model see X" checks). */
export const requestText = (request: RecordedRequest | undefined) =>
  (request?.messages ?? []).map((m) => m.content).join('\n');

export const toolNames = (request: RecordedRequest | undefined) => (request?.tools ?? []).map((t) => t.name);

/**
 * A behaviour-driven script step for convergence tests: answer when nothing can be voted for,
 * otherwise vote for `target`; present `Final: <content>` when asked to. Repeats for every call.
 */
export function policy(content: string, target: string): ScriptStep[] {
  const decide = (request: RecordedRequest): ScriptStep => {
    if (!request.tools.some((t) => t.name === 'new_answer')) return { text: `Final: ${content}` };
    const vote = request.tools.find((t) => t.name === 'vote');
    if (!vote) return { toolCalls: [{ name: 'new_answer', arguments: { content } }] };
    // Vote for the target once it has an answer; until then for any offered answer (re-voted after resets).
    const offered = (vote.parameters as { properties: { agent_id: { enum: string[] } } }).properties.agent_id
      .enum;
    const choice = offered.includes(target) ? target : (offered[0] as string);
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: choice, reason: `${choice} is right` } }] };
  };
  return Array.from({ length: 12 }, () => decide);
}
