import { Box, Text } from 'ink';
import { agentColor, panelBody, panelStatusLine } from '../lines.js';
import { agentRows, type ViewState } from '../view-state.js';
import { AgentPanel, panelChrome, type PanelVariant } from './agent-panel.js';

/** Below this many columns per agent the panels stack vertically. */
export const MIN_PANEL_WIDTH = 40;
/** Side-by-side panels stop growing here; stacked ones here. */
const MAX_FULL_HEIGHT = 30;
const MAX_STACKED_HEIGHT = 12;
/** Side-by-side panels show at least this many lines of text. */
const MIN_FULL_BODY = 3;
/** A side-by-side panel needs borders, four header lines and one line of text. */
const MIN_FULL_HEIGHT = 7;
/** A stacked panel needs borders, two header lines and one line of text. */
const MIN_STACKED_HEIGHT = 5;

export interface GridLayout {
  variant: PanelVariant;
  panelWidth: number;
  panelHeight: number;
}

/** How `agentCount` panels share `columns` × `height`. Pure. */
export function gridLayout(agentCount: number, columns: number, height: number): GridLayout {
  const n = Math.max(1, agentCount);
  if (columns >= MIN_PANEL_WIDTH * n && height >= MIN_FULL_HEIGHT) {
    return {
      variant: 'full',
      panelWidth: Math.floor(columns / n),
      panelHeight: Math.min(MAX_FULL_HEIGHT, height),
    };
  }
  const per = Math.floor(height / n);
  if (per >= MIN_STACKED_HEIGHT) {
    return { variant: 'stacked', panelWidth: columns, panelHeight: Math.min(MAX_STACKED_HEIGHT, per) };
  }
  return { variant: 'row', panelWidth: columns, panelHeight: 1 };
}

export interface AgentGridProps {
  view: ViewState;
  columns: number;
  /** Rows available to the grid. */
  height: number;
}

/** The agent panels: side by side when each gets ~40 columns, stacked otherwise. */
export function AgentGrid({ view, columns, height }: AgentGridProps) {
  const rows = agentRows(view);
  if (rows.length === 0) {
    return (
      <Box height={1}>
        <Text dimColor>Waiting for the run to start…</Text>
      </Box>
    );
  }
  const layout = gridLayout(rows.length, columns, height);
  const latest = new Map<string, string>();
  for (const answer of view.run.answers) latest.set(answer.agentId, answer.content);
  // Panels are as tall as their content needs (side by side: the tallest one), within the layout's room.
  const inner = Math.max(4, layout.panelWidth - 4);
  const needed = rows.map(({ agent, view: agentView }) => {
    const chrome = panelChrome(layout.variant) + (panelStatusLine(agentView, inner) ? 1 : 0);
    const body = panelBody(
      agent,
      agentView,
      latest.get(agent.agentId) ?? null,
      inner,
      layout.panelHeight - chrome,
    );
    const minBody = layout.variant === 'full' ? MIN_FULL_BODY : 1;
    return Math.min(layout.panelHeight, chrome + Math.max(minBody, body.length));
  });
  const rowHeight = Math.max(...needed);
  const heights = layout.variant === 'full' ? needed.map(() => rowHeight) : needed;
  const total = layout.variant === 'full' ? rowHeight : heights.reduce((sum, h) => sum + h, 0);
  return (
    <Box
      flexDirection={layout.variant === 'full' ? 'row' : 'column'}
      width={columns}
      height={Math.min(height, total)}
      overflow="hidden"
    >
      {rows.map(({ agent, view: agentView, badge, index }) => (
        <AgentPanel
          key={agent.agentId}
          agent={agent}
          view={agentView}
          badgeKind={badge.kind}
          badgeText={badge.text}
          latestAnswer={latest.get(agent.agentId) ?? null}
          color={agentColor(index)}
          isWinner={view.final !== null && view.run.winnerId === agent.agentId}
          width={layout.panelWidth}
          height={heights[index] ?? layout.panelHeight}
          variant={layout.variant}
        />
      ))}
    </Box>
  );
}
