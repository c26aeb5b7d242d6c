import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { BatchResultLine } from '../batch/result-line.js';
import { ConfigError } from '../types/errors.js';
import type { EvalItem } from './dataset.js';
import { majorityOf, type GradedAnswer, type SeparateAnswer } from './score-questions.js';
import type { Scorer } from './scorers.js';

/** Baselines run as calls of their own, one agent of the team alone, at the team's token budget. */
export const SEPARATE_BASELINE_KINDS = ['single-call', 'best-of-n'] as const;
export type SeparateBaselineKind = (typeof SEPARATE_BASELINE_KINDS)[number];

/** `single-call[:AGENT]` or `best-of-n[:AGENT]`; no agent: every agent (`single-call`), the first (`best-of-n`). */
export interface SeparateBaseline {
  kind: SeparateBaselineKind;
  agent?: string;
}

/** The most samples best-of-n takes for one question. */
export const BEST_OF_N_MAX = 8;

/** One separate-call system of an eval: its name in the report, the agent it asks, its folder. */
export interface SeparateSystem {
  name: string;
  kind: SeparateBaselineKind;
  agent: string;
  /** `<output>/baselines/<kind>-<agent>/`: questions.jsonl, results.jsonl, configs/. */
  dir: string;
}

/** The systems the requested baselines name, in order, without duplicates. */
export function separateSystems(
  requested: readonly SeparateBaseline[],
  agentIds: readonly string[],
  out: string,
): SeparateSystem[] {
  const systems: SeparateSystem[] = [];
  for (const b of requested) {
    if (b.agent !== undefined && !agentIds.includes(b.agent))
      throw new ConfigError(`baseline ${b.kind}:${b.agent}: the team has no agent "${b.agent}"`, {
        hint: `its agents: ${agentIds.join(', ')}`,
      });
    const agents =
      b.agent !== undefined ? [b.agent] : b.kind === 'single-call' ? agentIds : agentIds.slice(0, 1);
    for (const agent of agents) {
      const name = `${b.kind}:${agent}`;
      if (systems.some((s) => s.name === name)) continue;
      const folder = `${b.kind}-${agent.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
      systems.push({ name, kind: b.kind, agent, dir: path.join(out, 'baselines', folder) });
    }
  }
  return systems;
}

/**
 * The number of best-of-n samples for a question: as many single answers as fit in the team's tokens
 * `teamTokens`, each costing what the agent's first answer cost in the team's run (`firstAnswerTokens`),
 * at least 1 and at most {@link BEST_OF_N_MAX}. Without that cost (no log, or the agent never
 * answered): the team's number of agents.
 */
export function bestOfNSamples(
  teamTokens: number,
  firstAnswerTokens: number | null,
  teamSize: number,
): number {
  const n =
    firstAnswerTokens !== null && firstAnswerTokens > 0 && teamTokens > 0
      ? Math.floor(teamTokens / firstAnswerTokens)
      : teamSize;
  return Math.max(1, Math.min(BEST_OF_N_MAX, n));
}

/**
 * The `max_tokens` of each call: the team's tokens on the question shared among the calls (all of
 * them for single-call, an N-th for each best-of-n sample), never above the agent's own `max_tokens`.
 * Null (the agent's own setting) when the team spent nothing (its run failed before any call).
 */
export function matchedMaxTokens(teamTokens: number, calls: number, own: number | undefined): number | null {
  if (teamTokens <= 0) return own ?? null;
  const share = Math.max(1, Math.floor(teamTokens / calls));
  return own === undefined ? share : Math.min(own, share);
}

/** The team config's raw top level and agent entries (as written: `${VAR}`s stay for the loader). */
function rawConfig(configFile: string): { top: Record<string, unknown>; agents: Record<string, unknown>[] } {
  const raw = (parseYaml(readFileSync(configFile, 'utf8'), { merge: true }) ?? {}) as Record<string, unknown>;
  const { agent, agents, ...top } = raw;
  const list = Array.isArray(agents) ? agents : agent !== undefined ? [agent] : [];
  return { top, agents: list as Record<string, unknown>[] };
}

/**
 * Writes the one-agent config of `agent` with `max_tokens` set (a JSON file: the loader reads JSON):
 * the team config's top level (pricing, rate limits, orchestrator settings…) with only that agent's
 * entry, its backend settings as written.
 */
export function writeOneAgentConfig(
  configFile: string,
  agentIndex: number,
  maxTokens: number | null,
  file: string,
): void {
  const { top, agents } = rawConfig(configFile);
  const entry = structuredClone(agents[agentIndex] ?? {});
  const backend = { ...((entry.backend as Record<string, unknown> | undefined) ?? {}) };
  if (maxTokens !== null) backend.max_tokens = maxTokens;
  entry.backend = backend;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...top, agents: [entry] }, null, 2)}\n`);
}

/** The agent's own `max_tokens` in the team config, if set. */
export function ownMaxTokens(configFile: string, agentIndex: number): number | undefined {
  const entry = rawConfig(configFile).agents[agentIndex];
  const value = (entry?.backend as { max_tokens?: unknown } | undefined)?.max_tokens;
  return typeof value === 'number' ? value : undefined;
}

/** One planned call of a separate baseline: its batch id, the question and its config. */
export interface PlannedCall {
  id: string;
  question: string;
  attachments: string[];
  config: string;
  maxTokens: number | null;
}

/** The batch id of a baseline call: the question's id, and `#k` for best-of-n's k-th sample. */
export const sampleId = (questionId: string, k: number, kind: SeparateBaselineKind) =>
  kind === 'single-call' ? questionId : `${questionId}#${k}`;

/** Grades a separate baseline's answer to one question from its result lines. */
export async function gradeSeparate(
  system: SeparateSystem,
  item: EvalItem,
  calls: readonly PlannedCall[],
  lines: ReadonlyMap<string, BatchResultLine>,
  scorer: Scorer,
): Promise<SeparateAnswer | null> {
  const taken = calls.map((c) => ({ call: c, line: lines.get(c.id) })).filter((c) => c.line !== undefined);
  if (taken.length === 0) return null;
  const graded: GradedAnswer[] = [];
  for (const { line } of taken) {
    const l = line as BatchResultLine;
    const verdict = await scorer.score(l.answer, item);
    graded.push({
      answer: l.answer,
      correct: verdict.correct,
      extracted: verdict.extracted,
      tokens: l.tokens.total,
      costUsd: l.cost_usd,
      latencyMs: l.duration_ms,
      ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
    });
  }
  // Best-of-n's pick: the plurality of the samples as the scorer reads them; ties to the earliest sample.
  const indices = graded.map((_, i) => String(i));
  const pick = majorityOf(indices, (i) => scorer.key(graded[Number(i)]?.answer ?? null, item));
  const chosen = pick ? (graded[Number(pick.agentId)] as GradedAnswer) : null;
  return {
    answer: chosen?.answer ?? null,
    correct: chosen?.correct ?? false,
    extracted: chosen?.extracted ?? null,
    ...(chosen?.reason === undefined ? {} : { reason: chosen.reason }),
    tokens: graded.reduce((s, g) => s + g.tokens, 0),
    costUsd: graded.reduce((s, g) => s + g.costUsd, 0),
    // The samples are independent: they can all run at once.
    latencyMs: Math.max(...graded.map((g) => g.latencyMs)),
    maxTokens: calls[0]?.maxTokens ?? null,
    samples: calls.length,
    picked: pick ? Number(pick.agentId) + 1 : null,
  };
}
