import { Box, Text } from 'ink';
import type { StyledLine } from '../lines.js';

/** Renders styled lines, one terminal row each (long lines are cut, never wrapped). */
export function StyledLines({ lines }: { lines: readonly StyledLine[] }) {
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Text
          key={i}
          wrap="truncate-end"
          {...(l.color ? { color: l.color } : {})}
          dimColor={l.dim === true}
          bold={l.bold === true}
          italic={l.italic === true}
        >
          {l.spans && l.spans.length > 0
            ? l.spans.map((span, j) => (
                <Text
                  key={j}
                  {...(span.color ? { color: span.color } : {})}
                  {...(span.dim ? { dimColor: true } : {})}
                  {...(span.bold ? { bold: true } : {})}
                  {...(span.italic ? { italic: true } : {})}
                  {...(span.underline ? { underline: true } : {})}
                  {...(span.strikethrough ? { strikethrough: true } : {})}
                >
                  {span.text}
                </Text>
              ))
            : l.text === ''
              ? ' '
              : l.text}
        </Text>
      ))}
    </Box>
  );
}
