import { useId, useState } from 'react';
import type { Task } from '../../../src/types/agent-work-events.js';
import type { AgentState, AnswerRecord } from '../../../src/types/run-state.js';
import { formatAgentsCost } from '../../../src/util/cost-text.js';
import { votesText } from '../answers.js';
import type { AgentStream, RunView, TurnView } from '../run-view.js';
import type { SubagentRun } from '../subagent-runs.js';
import { SubagentList } from './subagent-list.js';
import { AnswerVersions } from './answer-versions.js';
import { MarkdownBlock } from './markdown-block.js';
import { LatestScreenshot } from './latest-screenshot.js';
import { MediaList } from './media-view.js';

/**
 * One agent: status badge, its latest answer (rendered; the label opens every version and the diffs
 * between them), its vote and the votes it holds, tokens and cost, and its transcript — text,
 * reasoning (collapsed), tool calls and the user's messages it received.
 */
export function AgentPanel({
  agent,
  stream,
  versions,
  votes,
  winner,
  runId,
  subagents = [],
  plan,
}: {
  agent: AgentState;
  stream: AgentStream | undefined;
  versions: AnswerRecord[];
  /** Counted votes for this agent's answer. */
  votes: number;
  winner: boolean;
  /** For the latest screenshot of the agent's desktop (`tools.computer`), read from its workspace. */
  runId?: string;
  /** The subagents it spawned, each with its own run (docs/subagents.md). */
  subagents?: readonly SubagentRun<RunView>[];
  /** The agent's task plan (`enable_agent_task_planning`), when it has one. */
  plan?: Task[] | undefined;
}) {
  const [open, setOpen] = useState(false);
  const versionsId = useId();
  const latest = versions.at(-1);
  const tokens = agent.usage.inputTokens + agent.usage.outputTokens;
  const selfVote = agent.vote?.targetAgentId === agent.agentId;
  return (
    <section aria-label={agent.agentId} className={`panel status-${agent.status}${winner ? ' winner' : ''}`}>
      <header>
        {/* A section of the run page, as the final answer is: the level under the question's h1. */}
        <h2>{agent.agentId}</h2>
        <span className="muted">
          {agent.anonymousId} · {agent.backendType}/{agent.model}
        </span>
        <span className={`badge badge-${agent.status}`} data-testid={`badge-${agent.agentId}`}>
          {agent.status}
        </span>
        {winner && <span className="badge badge-winner">winner</span>}
      </header>
      <p className="meta">
        {latest ? (
          <button
            type="button"
            className="label"
            aria-expanded={open}
            aria-controls={versionsId}
            title={`Show every version of ${agent.agentId}'s answer and what changed`}
            onClick={() => setOpen((o) => !o)}
          >
            {latest.label}
          </button>
        ) : (
          <span className="muted">no answer yet</span>
        )}
        {latest && <span className="panel-tally"> · {votesText(votes)}</span>}
        {agent.vote && (
          <span>
            {' '}
            · voted for {agent.vote.targetLabel}
            {selfVote ? ' (itself)' : ''}
          </span>
        )}
      </p>
      <p className="meta muted usage-line">
        {tokens.toLocaleString('en')} tokens ({agent.usage.inputTokens.toLocaleString('en')} in ·{' '}
        {agent.usage.outputTokens.toLocaleString('en')} out)
        {` · ${formatAgentsCost([agent])}`}
      </p>
      <SubagentList runs={subagents} />
      {open && latest ? (
        <AnswerVersions agentId={agent.agentId} versions={versions} id={versionsId} />
      ) : (
        latest && (
          <section className="latest-answer" aria-label={`Latest answer of ${agent.agentId}`}>
            <MarkdownBlock text={latest.content} />
          </section>
        )
      )}
      {plan && <TaskPlanBlock agentId={agent.agentId} tasks={plan} />}
      <LatestScreenshot runId={runId} agentId={agent.agentId} stream={stream} />
      <details className="transcript" open>
        <summary>Transcript</summary>
        <ol className="turns">
          {(stream?.turns ?? []).map((t) => (
            <TurnBlock key={t.turn} turn={t} runId={runId} />
          ))}
        </ol>
      </details>
    </section>
  );
}

/** One turn of the transcript: messages received, reasoning (collapsed), text, tool calls with results. */
function TurnBlock({ turn, runId }: { turn: TurnView; runId: string | undefined }) {
  return (
    <li className="turn">
      <span className="turn-label muted">turn {turn.turn}</span>
      {(turn.received ?? []).map((m) => (
        <p key={m.seq} className="received">
          <span aria-hidden="true">✉ </span>
          <span className="muted">your message:</span> {m.text}
        </p>
      ))}
      {turn.reasoning !== '' && (
        <details>
          <summary>Reasoning</summary>
          <pre className="reasoning">{turn.reasoning}</pre>
        </details>
      )}
      {turn.text !== '' && <pre className="stream">{turn.text}</pre>}
      {turn.tools.length > 0 && (
        <ul className="tools">
          {turn.tools.map((t) => (
            <li key={t.callId} className={t.isError ? 'tool-error' : ''}>
              <code>
                {t.toolName}({t.arguments})
              </code>
              {t.result !== null && <pre>{t.result}</pre>}
              {runId && (t.media ?? []).length > 0 && (
                <MediaList runId={runId} refs={t.media ?? []} label={`Media from ${t.toolName}`} />
              )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

const STATUS_MARK: Record<Task['status'], string> = {
  pending: '○',
  in_progress: '◐',
  completed: '●',
  blocked: '⊘',
};

/** The agent's task plan: each task with its status, priority, what it waits for and how it is verified. */
function TaskPlanBlock({ agentId, tasks }: { agentId: string; tasks: Task[] }) {
  const done = tasks.filter((t) => t.status === 'completed').length;
  return (
    <details className="task-plan" open>
      <summary>
        Task plan · {done}/{tasks.length} done
      </summary>
      <ol aria-label={`Task plan of ${agentId}`}>
        {tasks.map((t) => (
          <li key={t.id} className={`task task-${t.status}`} data-status={t.status}>
            <span aria-hidden="true">{STATUS_MARK[t.status]} </span>
            <code>{t.id}</code> {t.description}{' '}
            <span className="muted">
              ({t.status.replace('_', ' ')}, {t.priority}
              {t.dependencies.length > 0 ? `, after ${t.dependencies.join(', ')}` : ''})
            </span>
            {t.verification && <div className="muted">verify: {t.verification}</div>}
            {t.notes && <div className="muted">notes: {t.notes}</div>}
          </li>
        ))}
      </ol>
    </details>
  );
}
