import { Box } from 'ink';
import { bodyHeight, screenHeight } from '../lines.js';
import type { UiState, ViewState } from '../view-state.js';
import { AgentGrid } from './agent-grid.js';
import { FinalAnswer, finalAnswerHeight } from './final-answer.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import { TimelineView } from './timeline-view.js';
import { TranscriptView } from './transcript-view.js';
import { VotesView } from './votes-view.js';

export interface LiveViewProps {
  view: ViewState;
  ui: UiState;
  columns: number;
  rows: number;
  /** The current time (ms since the epoch), for the elapsed time. */
  now: number;
}

/**
 * The live multi-agent view: header, then the agent panels (or one agent's transcript, the timeline,
 * the votes), then key hints. Pure: everything comes from props, and the frame never gets as tall as
 * the terminal.
 */
export function LiveView({ view, ui, columns, rows, now }: LiveViewProps) {
  const body = bodyHeight(rows);
  const height = screenHeight(rows);
  let content;
  switch (ui.mode) {
    case 'agent':
      content = (
        <TranscriptView
          view={view}
          agentIndex={ui.selectedAgent}
          width={columns}
          height={height}
          scroll={ui.scroll}
        />
      );
      break;
    case 'table':
      content = <TimelineView view={view} width={columns} height={height} scroll={ui.scroll} />;
      break;
    case 'votes':
      content = <VotesView view={view} width={columns} height={height} scroll={ui.scroll} />;
      break;
    case 'panels': {
      const final = view.final;
      const finalRows = final
        ? Math.min(finalAnswerHeight(final, columns), Math.max(5, Math.floor(body / 2)))
        : 0;
      content = (
        <>
          <AgentGrid view={view} columns={columns} height={body - finalRows} />
          {final ? <FinalAnswer final={final} width={columns} maxHeight={finalRows} /> : null}
        </>
      );
      break;
    }
  }
  return (
    <Box flexDirection="column" width={columns}>
      <Header run={view.run} columns={columns} now={now} cancelRequested={ui.cancelRequested} />
      {content}
      <Footer
        mode={ui.mode}
        agentCount={view.run.agents.length}
        cancelRequested={ui.cancelRequested}
        finished={view.run.phase === 'finished'}
      />
    </Box>
  );
}
