import type { AgentState } from '../../../src/types/run-state.js';
import type { AgentStream, TurnView } from '../run-view.js';

const usd = (n: number) => `$${n.toFixed(n < 0.01 ? 4 : 2)}`;

/** One agent: status badge, answer label, what it is writing, its reasoning and tool calls. */
export function AgentPanel({ agent, stream }: { agent: AgentState; stream: AgentStream | undefined }) {
  const tokens = agent.usage.inputTokens + agent.usage.outputTokens;
  return (
    <section aria-label={agent.agentId} className={`panel status-${agent.status}`}>
      <header>
        <h3>{agent.agentId}</h3>
        <span className="muted">
          {agent.anonymousId} · {agent.backendType}/{agent.model}
        </span>
        <span className={`badge badge-${agent.status}`} data-testid={`badge-${agent.agentId}`}>
          {agent.status}
        </span>
      </header>
      <p className="meta">
        {agent.latestLabel ? (
          <span className="label">{agent.latestLabel}</span>
        ) : (
          <span className="muted">no answer yet</span>
        )}
        {agent.vote && <span> · voted for {agent.vote.targetLabel}</span>}
        <span className="muted">
          {' '}
          · {tokens} tokens{agent.priced ? ` · ${usd(agent.costUsd)}` : ''}
        </span>
      </p>
      <ol className="turns">
        {(stream?.turns ?? []).map((t) => (
          <TurnBlock key={t.turn} turn={t} />
        ))}
      </ol>
    </section>
  );
}

/** One turn of the transcript: reasoning (collapsed), text, tool calls with their results. */
function TurnBlock({ turn }: { turn: TurnView }) {
  return (
    <li className="turn">
      <span className="turn-label muted">turn {turn.turn}</span>
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
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
