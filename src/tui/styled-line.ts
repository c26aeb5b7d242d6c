/**
 * The content of the live view as styled lines, computed purely from the view state and a width.
 * Components render them one `<Text>` each, which keeps heights exact (every line is one row) and lets
 * the scrolling screens window them.
 */
export interface StyledLine {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
  italic?: boolean;
  /** Styled pieces of the line (rendered Markdown); their texts joined are `text`. */
  spans?: readonly Span[];
}

/** A piece of a line with its own style (bold, code, a link…). */
export interface Span {
  text: string;
  color?: string;
  dim?: boolean;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
}

export const line = (text: string, style: Omit<StyledLine, 'text'> = {}): StyledLine => ({ text, ...style });
export const lines = (texts: string[], style: Omit<StyledLine, 'text'> = {}): StyledLine[] =>
  texts.map((t) => line(t, style));
export const indent = (texts: string[], prefix = '  '): string[] => texts.map((t) => prefix + t);
