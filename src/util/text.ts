/** Shortens text to `max` characters, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Collapses whitespace into single spaces (for one-line previews). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
