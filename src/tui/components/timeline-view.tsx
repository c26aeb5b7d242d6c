import { timelineLines } from '../lines.js';
import type { ViewState } from '../view-state.js';
import { ScrollScreen } from './scroll-screen.js';

export interface TimelineViewProps {
  view: ViewState;
  width: number;
  height: number;
  scroll: number;
}

/** The coordination table: turns, answers, votes, updates, restarts, failures, drops, presentation. */
export function TimelineView({ view, width, height, scroll }: TimelineViewProps) {
  return (
    <ScrollScreen
      title="Coordination timeline · time · agent · event"
      lines={timelineLines(view, width)}
      width={width}
      height={height}
      scroll={scroll}
    />
  );
}
