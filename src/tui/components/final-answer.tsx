import { Box, Text } from 'ink';
import { markdownLines } from '../markdown-lines.js';
import type { FinalAnswerView } from '../view-state.js';
import { StyledLines } from './styled-lines.js';

export interface FinalAnswerProps {
  final: FinalAnswerView;
  width: number;
  /** Rows the box may take, borders included; omitted: the whole answer. */
  maxHeight?: number;
}

/** Rows the box takes for `final` at `width` when nothing is cut. */
export function finalAnswerHeight(final: FinalAnswerView, width: number): number {
  return 3 + (final.fallback ? 1 : 0) + markdownLines(final.content, Math.max(4, width - 4)).length;
}

/** The final answer, prominent: winner, label, whether the stored answer was used, and the text (Markdown rendered). */
export function FinalAnswer({ final, width, maxHeight }: FinalAnswerProps) {
  const inner = Math.max(4, width - 4);
  const chrome = 3 + (final.fallback ? 1 : 0);
  const room = maxHeight === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, maxHeight - chrome);
  const all = markdownLines(final.content, inner);
  // When cut, the last row says how much more there is.
  const shown = all.length <= room ? all : all.slice(0, Math.max(0, room - 1));
  const hidden = all.length - shown.length;
  return (
    <Box flexDirection="column" width={width} borderStyle="double" borderColor="green" paddingX={1}>
      <Text wrap="truncate-end" color="green" bold>
        ★ Final answer · {final.agentId} · {final.label}
      </Text>
      {final.fallback ? (
        <Text wrap="truncate-end" color="yellow">
          The presentation failed, so the winner&apos;s stored answer is shown
          {final.error ? `: ${final.error.message}` : ''}
        </Text>
      ) : null}
      <StyledLines lines={shown} />
      {hidden > 0 ? (
        <Text dimColor wrap="truncate-end">
          … {hidden} more line{hidden === 1 ? '' : 's'} (printed in full when the run ends)
        </Text>
      ) : null}
    </Box>
  );
}
