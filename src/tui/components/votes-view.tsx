import { scoreLines, votesLines } from '../lines.js';
import type { ViewState } from '../view-state.js';
import { ScrollScreen } from './scroll-screen.js';

export interface VotesViewProps {
  view: ViewState;
  width: number;
  height: number;
  scroll: number;
}

/** Every vote (voter → answer label, counted / stale / cleared, reason), the tallies and the checklist scores. */
export function VotesView({ view, width, height, scroll }: VotesViewProps) {
  return (
    <ScrollScreen
      title={`Votes (${view.run.votes.length})`}
      titleColor="magenta"
      lines={[...votesLines(view, width), ...scoreLines(view.run, width)]}
      width={width}
      height={height}
      scroll={scroll}
    />
  );
}
