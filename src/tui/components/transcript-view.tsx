import { agentColor, transcriptLines } from '../lines.js';
import { agentBadge, type ViewState } from '../view-state.js';
import { ScrollScreen } from './scroll-screen.js';

export interface TranscriptViewProps {
  view: ViewState;
  agentIndex: number;
  width: number;
  height: number;
  scroll: number;
}

/** One agent's full transcript: every turn, text, tool call, answer, vote and update, in order. */
export function TranscriptView({ view, agentIndex, width, height, scroll }: TranscriptViewProps) {
  const agent = view.run.agents[agentIndex];
  if (!agent) {
    return <ScrollScreen title="No such agent" lines={[]} width={width} height={height} scroll={0} />;
  }
  const agentView = view.agents[agent.agentId];
  const badge = agentBadge(view.run, agent, agentView);
  const title =
    `${agentIndex + 1}. ${agent.agentId} (${agent.anonymousId}) · ${agent.backendType}/${agent.model} · ${badge.text}` +
    (agent.restarts > 0 ? ` · ${agent.restarts} restart${agent.restarts === 1 ? '' : 's'}` : '');
  return (
    <ScrollScreen
      title={title}
      titleColor={agentColor(agentIndex)}
      lines={transcriptLines(agentView, width)}
      width={width}
      height={height}
      scroll={scroll}
    />
  );
}
