import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { currentTallies, totalCost, totalUsage } from '../types/run-state.js';
import type { TrackedRun } from './tracked-run.js';

/**
 * What the MCP tools answer about a run, as plain JSON (snake_case, like `status.json`): small enough
 * for a coding agent's context, with answers shortened and the final answer in full only in `result`.
 */

/** Answers in `status` are cut to this many characters (the full text is in the log folder). */
const PREVIEW_CHARS = 300;
/** At most this many deliverable files are listed. */
const MAX_FILES = 200;

const preview = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text);

/** `status`: where the run is, its answers and votes so far, and what it has cost. */
export function runStatus(run: TrackedRun, now: number) {
  const { state } = run;
  const usage = totalUsage(state);
  return {
    run_id: run.id,
    question: preview(run.question),
    config: run.configFile,
    phase: run.phase,
    done: run.finished,
    /** The most turns any agent has started: 1 while the first answers are written. */
    round: Math.max(0, ...state.agents.map((a) => a.turns)),
    attempt: state.attempt,
    agents: state.agents.map((a) => ({
      id: a.agentId,
      anonymous_id: a.anonymousId,
      model: a.model,
      status: a.status,
      answers: a.answerCount,
      latest_label: a.latestLabel,
      vote: a.vote ? { for: a.vote.targetAgentId, label: a.vote.targetLabel } : null,
    })),
    answers: state.answers.map((a) => ({ label: a.label, agent: a.agentId, preview: preview(a.content) })),
    votes: state.votes
      .filter((v) => v.counted)
      .map((v) => ({
        voter: v.voterId,
        for: v.targetAgentId,
        label: v.targetLabel,
        reason: preview(v.reason),
      })),
    tallies: run.finished || state.coordinationEnd ? state.tallies : currentTallies(state),
    cost_usd: Number(totalCost(state).toFixed(6)),
    tokens: { input: usage.inputTokens, output: usage.outputTokens, cached_input: usage.cachedInputTokens },
    elapsed_seconds: Math.max(0, Math.round((now - run.createdAt) / 100) / 10),
    last_event: run.milestone.message,
    log_dir: run.logDir,
  };
}

/** Files under `dir` (relative paths, sorted), at most {@link MAX_FILES}. */
async function listFiles(dir: string): Promise<{ files: string[]; truncated: boolean }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
  return { files: files.slice(0, MAX_FILES), truncated: files.length > MAX_FILES };
}

/** `result` once the run is over: the final answer, who won, the votes, and where its files are. */
export async function runResult(run: TrackedRun, now: number) {
  const result = run.result;
  const workspace = result?.workspaceDir ?? null;
  const listed = workspace ? await listFiles(workspace) : { files: [], truncated: false };
  return {
    run_id: run.id,
    done: true,
    status: result?.status ?? (run.startError?.code === 'cancelled' ? 'cancelled' : 'failed'),
    exit_code: result?.exitCode ?? (run.startError?.code === 'cancelled' ? 130 : 2),
    winner: result?.winnerId ?? null,
    final_answer: result?.finalAnswer ?? null,
    tallies: run.state.tallies,
    votes: run.state.votes
      .filter((v) => v.counted)
      .map((v) => ({ voter: v.voterId, for: v.targetAgentId, label: v.targetLabel, reason: v.reason })),
    answers: run.state.answers.map((a) => ({ label: a.label, agent: a.agentId })),
    cost_usd: Number(totalCost(run.state).toFixed(6)),
    duration_seconds: result
      ? Math.round(result.durationMs / 100) / 10
      : Math.round((now - run.createdAt) / 100) / 10,
    log_dir: run.logDir,
    answer_file: result?.answerFile ?? null,
    deliverables: {
      /** The winner's workspace, copied next to its answer in the log folder. */
      workspace_dir: workspace,
      files: listed.files,
      files_truncated: listed.truncated,
      /** Context paths the winner could write to while presenting. */
      writable_context_paths: run.writablePaths,
    },
    ...(result?.error || run.startError ? { error: result?.error ?? run.startError } : {}),
  };
}

/** `list_runs`: one line per run. */
export function runLine(run: TrackedRun) {
  return {
    run_id: run.id,
    phase: run.phase,
    status: run.result?.status ?? (run.finished ? 'failed' : null),
    question: preview(run.question).slice(0, 120),
    winner: run.result?.winnerId ?? null,
  };
}
