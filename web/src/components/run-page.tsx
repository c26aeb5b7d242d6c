import { useEffect, useReducer, useRef, useState } from 'react';
import type { RunEvent } from '../../../src/types/events.js';
import { totalCost, totalUsage } from '../../../src/types/run-state.js';
import { api, followRun } from '../api.js';
import { initialRunView, reduceRunView, type RunView } from '../run-view.js';
import { AgentPanel } from './agent-panel.js';
import { FinalAnswer } from './final-answer.js';
import { Timeline } from './timeline.js';
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
  const [connected, setConnected] = useState(false);
  const [done, setDone] = useState(false);
  const [pastEvents, setPastEvents] = useState<RunEvent[]>([]);
  const [played, setPlayed] = useState(0);
  const [speed, setSpeed] = useState(4);
  const [followUp, setFollowUp] = useState('');
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
        follow = followRun(runId, {
          onEvent: (event) => dispatch({ type: 'event', event }),
          onDone: () => {
            setDone(true);
            void api.run(runId).then((r) => r.error && setProblem(r.error));
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
  return (
    <main>
      <nav>
        <button className="link" onClick={() => onNavigate('/')}>
          ← massgen
        </button>
      </nav>
      <header className="run-header">
        <h1>{run.question || '…'}</h1>
        <p>
          <span className="badge">{run.phase}</span>
          {run.status && <span className="badge">{run.status}</span>}
          {state === 'live' && !done && (
            <span className="muted">{connected ? ' · live' : ' · reconnecting…'}</span>
          )}
          <span className="muted">
            {' '}
            · {usage.inputTokens + usage.outputTokens} tokens · ${totalCost(run).toFixed(4)}
          </span>
          {run.attempt > 1 && <span className="muted"> · attempt {run.attempt}</span>}
        </p>
        {state === 'live' && !done && (
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
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
      </header>
      {view.approvals.length > 0 && (
        <section aria-label="Approvals" className="approvals">
          <h2>Tool calls waiting for you</h2>
          {view.approvals.map((a) => (
            <div key={a.callId}>
              <code>
                {a.agentId}: {a.toolName}({a.arguments})
              </code>{' '}
              <button onClick={() => void api.approve(runId, a.agentId, a.callId, true)}>Approve</button>{' '}
              <button onClick={() => void api.approve(runId, a.agentId, a.callId, false)}>Deny</button>
            </div>
          ))}
        </section>
      )}
      <div className="panels">
        {run.agents.map((agent) => (
          <AgentPanel key={agent.agentId} agent={agent} stream={view.streams[agent.agentId]} />
        ))}
      </div>
      {(view.presentation || run.finalAnswer) && (
        <FinalAnswer text={run.finalAnswer ?? view.presentation} presenter={presenter} />
      )}
      <div className="side">
        <VoteGraph agents={run.agents} votes={view.votes} />
        <Timeline items={view.timeline} start={run.startedAt} />
      </div>
      <Workspaces runId={runId} refreshKey={done ? 1 : 0} />
      {state === 'live' && done && (
        <form
          className="ask"
          onSubmit={(e) => {
            e.preventDefault();
            void api.start(followUp, '', runId).then((next) => onNavigate(`/runs/${next.id}`));
          }}
        >
          <label htmlFor="follow-up">Follow-up</label>
          <textarea id="follow-up" rows={2} value={followUp} onChange={(e) => setFollowUp(e.target.value)} />
          <button type="submit" disabled={followUp.trim() === ''}>
            Ask
          </button>
        </form>
      )}
    </main>
  );
}
