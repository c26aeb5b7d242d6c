import { votesLines } from '../lines.js';
import type { ViewState } from '../view-state.js';
import { ScrollScreen } from './scroll-screen.js';

export interface VotesViewProps {
  view: ViewState;
  width: number;
  height: number;
  scroll: number;
}

/** Every vote (voter → answer label, counted / stale / cleared, reason) and the tallies. */
export function VotesView({ view, width, height, scroll }: VotesViewProps) {
  return (
    <ScrollScreen
      title={`Votes (${view.run.votes.length})`}
      titleColor="magenta"
      lines={votesLines(view, width)}
      width={width}
      height={height}
      scroll={scroll}
    />
  );
}
