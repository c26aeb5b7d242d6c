import { Box } from 'ink';
import type { StyledLine } from '../lines.js';
import { StyledLines } from './styled-lines.js';

export interface ApprovalPromptProps {
  /** From `approvalPromptLines`; nothing renders when empty. */
  lines: StyledLine[];
  width: number;
}

/** The prominent box asking whether a held tool call may run (`y` approve / `n` deny). */
export function ApprovalPrompt({ lines, width }: ApprovalPromptProps) {
  if (lines.length === 0) return null;
  return (
    <Box
      flexDirection="column"
      width={width}
      height={lines.length + 2}
      borderStyle="double"
      borderColor="yellow"
      paddingX={1}
      overflow="hidden"
    >
      <StyledLines lines={lines} />
    </Box>
  );
}
