import { useEffect, useReducer, useRef, useState } from 'react';
import type { RunEvent } from '../../../src/types/events.js';
import { cutOffReason } from '../../../src/types/final-finish.js';
import { totalUsage } from '../../../src/types/run-state.js';
import { formatAgentsCost } from '../../../src/util/cost-text.js';
import { currentAnswers, versionsOf, voteTallies } from '../answers.js';
import { api, ApiError, followRun, startProblems, type StartProblem } from '../api.js';
import { initialRunView, reduceRunView, type RunView } from '../run-view.js';
import { AgentPanel } from './agent-panel.js';
import { BrowserShots } from './browser-shots.js';
import { Approvals } from './approvals.js';
import { ReviewPanel } from './review-panel.js';
import { AnswerBrowser } from './answer-browser.js';
import { FinalAnswer } from './final-answer.js';
import { MediaList } from './media-view.js';
import { AttachFiles, useDropFiles } from './attach-files.js';
import { attachmentProblem, toUploads } from '../media.js';
import { StartProblems } from './start-problems.js';
import { Steering } from './steering.js';
import { Questions } from './questions.js';
import { ScoreHeatmap } from './score-heatmap.js';
import { Timeline } from './timeline.js';
import { UsageTable } from './usage-table.js';
import { VoteGraph } from './vote-graph.js';
import { Workspaces } from './workspaces.js';

type Action = { type: 'event'; event: RunEvent };
const reducer = (view: RunView, action: Action): RunView => reduceRunView(view, action.event);

/** Replay speeds: events per step of the replay clock, `Infinity` = jump to the end. */
const SPEEDS = [1, 4, 16];

/** One run, live (over the WebSocket) or past (replayed from its event log). */
export function RunPage({ runId, onNavigate }: { runId: string; onNavigate: (path: string) => void }) {
  const [view, dispatch] = useReducer(reducer, undefined, initialRunView);
  const [state, setState] = useState<'loading' | 'live' | 'past' | 'missing'>('loading');
  const [problem, setProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<StartProblem[] | null>(null);
  const [followUpProblems, setFollowUpProblems] = useState<StartProblem[] | null>(null);
  const [connected, setConnected] = useState(false);
  const [done, setDone] = useState(false);
  const [pastEvents, setPastEvents] = useState<RunEvent[]>([]);
  const [played, setPlayed] = useState(0);
  const [speed, setSpeed] = useState(4);
  const [followUp, setFollowUp] = useState('');
  const [followUpFiles, setFollowUpFiles] = useState<File[]>([]);
  const [followUpFileError, setFollowUpFileError] = useState<string | null>(null);
  const attachFollowUp = (files: File[]) => {
    setFollowUpFiles(files);
    setFollowUpFileError(attachmentProblem(files));
  };
  const followUpDrop = useDropFiles((dropped) => attachFollowUp([...followUpFiles, ...dropped]));
  const timer = useRef<ReturnType<typeof setInterval> | null>(null);

  useEffect(() => {
    let follow: { close: () => void } | null = null;
    api
      .run(runId)
      .then((run) => {
        if (run.kind === 'past') {
          setPastEvents(run.events);
          setPlayed(0);
          setDone(true);
          setState('past');
          return;
        }
        setState('live');
        if (run.error) setProblem(run.error);
        if (run.problems?.length) setProblems(run.problems);
        follow = followRun(runId, {
          onEvent: (event) => dispatch({ type: 'event', event }),
          onDone: () => {
            setDone(true);
            void api.run(runId).then((r) => {
              if (r.error) setProblem(r.error);
              if (r.problems?.length) setProblems(r.problems);
            });
          },
          onStatus: setConnected,
        });
      })
      .catch(() => setState('missing'));
    return () => follow?.close();
  }, [runId]);

  // The replay clock: feeds the past run's events into the same reducer, `speed` at a time.
  useEffect(() => {
    if (state !== 'past' || played >= pastEvents.length) return;
    timer.current = setInterval(() => {
      setPlayed((n) => {
        const next = Math.min(pastEvents.length, n + speed);
        for (const event of pastEvents.slice(n, next)) dispatch({ type: 'event', event });
        return next;
      });
    }, 100);
    return () => {
      if (timer.current) clearInterval(timer.current);
    };
  }, [state, speed, pastEvents, played >= pastEvents.length]);

  if (state === 'missing')
    return (
      <main>
        <h1>No run with id “{runId}”</h1>
        <p>It may have been started by another server, or its logs were removed.</p>
        <button onClick={() => onNavigate('/')}>Back to the start page</button>
      </main>
    );

  const run = view.run;
  const usage = totalUsage(run);
  const presenter =
    run.agents.find((a) => a.status === 'presenting' || a.status === 'done')?.agentId ?? run.winnerId;
  const tallies = voteTallies(view);
  const answers = currentAnswers(view);
  // A run that ended before it started (a config, key or workspace problem): no agents, no phase.
  const neverStarted = done && run.startedAt === null;
  // Live and not over (the run's last event can come a moment before the socket says done).
  const running = state === 'live' && !done && run.status === null;
  const steerable = running && run.startedAt !== null && run.coordinationEnd === null;
  return (
    <main>
      <nav>
        <button className="link" onClick={() => onNavigate('/')}>
          ← massgen
        </button>
      </nav>
      <header className="run-header">
        <h1>{run.question || '…'}</h1>
        <MediaList runId={runId} refs={view.attachments} label="Attached files" />
        <p>
          {neverStarted ? (
            <span className="badge badge-failed">not started</span>
          ) : (
            <span className="badge">{run.phase}</span>
          )}
          {run.status && <span className="badge">{run.status}</span>}
          {running && <span className="muted">{connected ? ' · live' : ' · reconnecting…'}</span>}
          <span className="muted">
            {' '}
            · {(usage.inputTokens + usage.outputTokens).toLocaleString('en')} tokens ·{' '}
            {formatAgentsCost(run.agents)}
          </span>
          {run.attempt > 1 && <span className="muted"> · attempt {run.attempt}</span>}
        </p>
        {run.agents.length > 0 && (
          <p className="header-tally">
            <span className="muted">Votes: </span>
            {run.agents.map((a, i) => (
              <span key={a.agentId} className={a.agentId === run.winnerId ? 'winner' : undefined}>
                {i > 0 && <span className="muted"> · </span>}
                {a.agentId} <strong className="tally-count">{tallies[a.agentId] ?? 0}</strong>
                {a.agentId === run.winnerId && ' ★ winner'}
              </span>
            ))}
          </p>
        )}
        {running && (
          <button type="button" onClick={() => void api.cancel(runId)}>
            Cancel run
          </button>
        )}
        {state === 'past' && (
          <div className="replay" aria-label="Replay controls">
            <span>
              Replay {played}/{pastEvents.length} events
            </span>
            {SPEEDS.map((s) => (
              <button key={s} type="button" aria-pressed={speed === s} onClick={() => setSpeed(s)}>
                {s}×
              </button>
            ))}
            <button type="button" onClick={() => setSpeed(Number.MAX_SAFE_INTEGER)}>
              Jump to end
            </button>
          </div>
        )}
        {problem && !problems && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
      </header>
      {problems && <StartProblems problems={problems} />}
      {steerable && (
        <Steering
          runId={runId}
          agentIds={run.agents.map((a) => a.agentId)}
          answerNowAsked={view.answerNow !== null}
          hasAnswers={run.answers.length > 0}
        />
      )}
      {view.questions.length > 0 && <Questions runId={runId} questions={view.questions} />}
      <Approvals
        runId={runId}
        pending={view.approvals}
        permissions={view.permissions}
        live={state === 'live' && !done}
      />
      {view.permissions.reviews.map((review) => (
        <ReviewPanel key={review.reviewId} runId={runId} review={review} live={state === 'live' && !done} />
      ))}
      {run.agents.length > 0 && (
        <div className="panels">
          {run.agents.map((agent) => (
            <AgentPanel
              key={agent.agentId}
              agent={agent}
              stream={view.streams[agent.agentId]}
              versions={versionsOf(view, agent.agentId)}
              votes={tallies[agent.agentId] ?? 0}
              winner={run.winnerId === agent.agentId}
              runId={runId}
              subagents={view.subagents[agent.agentId]}
              plan={view.plans[agent.agentId]}
            />
          ))}
        </div>
      )}
      <BrowserShots runId={runId} streams={view.streams} />
      {(view.presentation || run.finalAnswer) && (
        <FinalAnswer
          text={run.finalAnswer ?? view.presentation}
          presenter={presenter}
          cutOff={cutOffReason(run.finalFinish)}
          runId={runId}
          refreshKey={done ? view.fileChanges + 1 : 0}
        />
      )}
      <AnswerBrowser answers={answers} />
      <ScoreHeatmap run={run} />
      {run.agents.length > 0 && (
        <div className="side">
          <VoteGraph agents={run.agents} votes={view.votes} tallies={tallies} winnerId={run.winnerId} />
          <Timeline
            items={view.timeline}
            start={run.startedAt}
            messages={view.messages}
            agentIds={run.agents.map((a) => a.agentId)}
          />
          <UsageTable run={run} />
        </div>
      )}
      {!neverStarted && (
        <Workspaces runId={runId} refreshKey={view.fileChanges + (done ? 1 : 0)} live={running} />
      )}
      {state === 'live' && done && !neverStarted && (
        <form
          className="ask"
          onSubmit={(e) => {
            e.preventDefault();
            setFollowUpProblems(null);
            void toUploads(followUpFiles)
              .then((uploads) => api.start(followUp, '', runId, uploads))
              .then(
                (next) => onNavigate(`/runs/${next.id}`),
                (error: unknown) => {
                  const message = error instanceof Error ? error.message : String(error);
                  // A refused file is named by the files; anything else is a problem of the run.
                  if (/^attachments\[/.test(message) || (error instanceof ApiError && error.status === 413))
                    setFollowUpFileError(message);
                  else setFollowUpProblems(startProblems(error) ?? [{ message }]);
                },
              );
          }}
        >
          <label htmlFor="follow-up">Follow-up</label>
          <textarea
            id="follow-up"
            rows={2}
            className={followUpDrop.dragging ? 'dropping' : undefined}
            value={followUp}
            onChange={(e) => setFollowUp(e.target.value)}
            {...followUpDrop.handlers}
          />
          <AttachFiles files={followUpFiles} onChange={attachFollowUp} error={followUpFileError} />
          <button
            type="submit"
            disabled={followUp.trim() === '' || attachmentProblem(followUpFiles) !== null}
          >
            Ask
          </button>
          {followUpProblems && <StartProblems problems={followUpProblems} />}
        </form>
      )}
    </main>
  );
}
