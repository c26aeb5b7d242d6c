import { stringify } from 'yaml';
import type { CoordinationEndReason, ErrorInfo } from '../types/events.js';
import { totalCost, totalUsage, type RunState } from '../types/run-state.js';
import { roundCost, toSnakeUsage, type SnakeUsage } from './snake-usage.js';

/** Caller-supplied facts about a run that the event stream does not carry. */
export interface RunLogMetadata {
  /** The resolved config, already secret-masked by the caller: it is written verbatim. */
  config: unknown;
  /** Versions worth recording, e.g. `{ massgen: '0.1.0', node: 'v20.19.0' }`. */
  versions: Record<string, string>;
  /** Anything else to keep with the run; written under `extra`. */
  extra?: Record<string, unknown>;
}

/** The shape of `execution_metadata.yaml`. */
export interface ExecutionMetadataDocument {
  run_id: string | null;
  question: string;
  started_at: string;
  finished_at: string | null;
  duration_seconds: number;
  /** `running` until `run.finished` arrives. */
  status: string;
  exit_code: number | null;
  winner: string | null;
  winner_label: string | null;
  coordination_end_reason: CoordinationEndReason | null;
  final_answer_file: string | null;
  error: ErrorInfo | null;
  token_usage: { agents: Record<string, SnakeUsage>; total: SnakeUsage };
  /** Dollars per agent (null: no known price) and in total. */
  cost_usd: { agents: Record<string, number | null>; total: number };
  versions: Record<string, string>;
  config: unknown;
  extra: Record<string, unknown>;
}

/** What {@link buildExecutionMetadata} needs besides the run state. */
export interface MetadataContext {
  startedAt: Date;
  now: number;
  /** From `run.finished`; preferred over timestamps because the orchestrator measured it. */
  durationMs: number | null;
  finalAnswerFile: string | null;
  metadata: RunLogMetadata;
}

/** Projects the run state and caller metadata into `execution_metadata.yaml`'s document. Pure. */
export function buildExecutionMetadata(state: RunState, context: MetadataContext): ExecutionMetadataDocument {
  const startedMs = state.startedAt ?? context.startedAt.getTime();
  const durationMs = context.durationMs ?? Math.max(0, (state.finishedAt ?? context.now) - startedMs);
  const agents: Record<string, SnakeUsage> = {};
  for (const agent of state.agents) agents[agent.agentId] = toSnakeUsage(agent.usage);
  return {
    run_id: state.runId,
    question: state.question,
    started_at: new Date(startedMs).toISOString(),
    finished_at: state.finishedAt === null ? null : new Date(state.finishedAt).toISOString(),
    duration_seconds: Math.round(durationMs) / 1000,
    status: state.status ?? 'running',
    exit_code: state.exitCode,
    winner: state.winnerId,
    winner_label: state.winnerLabel,
    coordination_end_reason: state.coordinationEnd,
    final_answer_file: context.finalAnswerFile,
    error: state.error,
    token_usage: { agents, total: toSnakeUsage(totalUsage(state)) },
    cost_usd: {
      agents: Object.fromEntries(
        state.agents.map((a) => [a.agentId, a.priced ? roundCost(a.costUsd) : null]),
      ),
      total: roundCost(totalCost(state)),
    },
    versions: context.metadata.versions,
    config: context.metadata.config,
    extra: context.metadata.extra ?? {},
  };
}

const YAML_OPTIONS = { lineWidth: 0 };

/**
 * `execution_metadata.yaml`'s text, the same as `stringify(document, { lineWidth: 0 })`. The config and
 * `extra` do not change during a run and are most of the file for a large team (a thousand agents'
 * resolved configs), so they are turned into YAML once, on the first write, and reused on the later ones.
 */
export class MetadataYaml {
  private fixedPart: string | null = null;

  render(document: ExecutionMetadataDocument): string {
    const { config, extra, ...head } = document;
    // Top-level block mappings: the pairs' YAML joined is the YAML of the whole mapping.
    this.fixedPart ??= stringify({ config }, YAML_OPTIONS) + stringify({ extra }, YAML_OPTIONS);
    return stringify(head, YAML_OPTIONS) + this.fixedPart;
  }
}
