import { Box, Text } from 'ink';
import { windowLines, type StyledLine } from '../lines.js';
import { StyledLines } from './styled-lines.js';

export interface ScrollScreenProps {
  title: string;
  titleColor?: string;
  lines: StyledLine[];
  width: number;
  /** Rows for the lines (the title takes one more). */
  height: number;
  /** Rows scrolled back from the end. */
  scroll: number;
}

/** A titled, scrollable list of lines that follows the end unless scrolled back. */
export function ScrollScreen({ title, titleColor, lines, width, height, scroll }: ScrollScreenProps) {
  const window = windowLines(lines, height, scroll);
  const position =
    lines.length > height
      ? `  [${window.above + 1}-${window.above + window.lines.length} of ${lines.length}${window.below > 0 ? ', ↓ for newer' : ''}]`
      : '';
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold {...(titleColor ? { color: titleColor } : {})}>
          {title}
        </Text>
        <Text dimColor>{position}</Text>
      </Text>
      <StyledLines lines={window.lines} />
    </Box>
  );
}
