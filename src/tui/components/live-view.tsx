import { Box } from 'ink';
import { approvalPromptHeight, approvalPromptLines, bodyHeight, screenHeight } from '../lines.js';
import type { UiState, ViewState } from '../view-state.js';
import { AgentGrid } from './agent-grid.js';
import { ApprovalPrompt } from './approval-prompt.js';
import { FinalAnswer, finalAnswerHeight } from './final-answer.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import type { SteeringAbility } from '../steering-keys.js';
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
  /** `y`/`n` answer pending tool approvals (the prompt shows the keys). Default true. */
  canApprove?: boolean;
  /** Which steering keys work (`m` message, `a` answer now); default none. */
  steering?: SteeringAbility;
}

/**
 * The live multi-agent view: header, the approval prompt while a tool call waits for one, then the
 * agent panels (or one agent's transcript, the timeline, the votes), then key hints. Pure: everything
 * comes from props, and the frame never gets as tall as the terminal.
 */
export function LiveView({ view, ui, columns, rows, now, canApprove = true, steering }: LiveViewProps) {
  const reserved = approvalPromptHeight(view, ui);
  const body = bodyHeight(rows, reserved);
  const height = screenHeight(rows, reserved);
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
      <ApprovalPrompt lines={approvalPromptLines(view, ui, columns - 4, canApprove)} width={columns} />
      {content}
      <Footer
        mode={ui.mode}
        agentCount={view.run.agents.length}
        cancelRequested={ui.cancelRequested}
        finished={view.run.phase === 'finished'}
        columns={columns}
        ability={steering ?? { canMessage: false, canAnswerNow: false }}
        steering={ui.steering}
        selectedAgentId={view.run.agents[ui.selectedAgent]?.agentId ?? null}
      />
    </Box>
  );
}
