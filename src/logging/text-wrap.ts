/**
 * Wraps text to lines of at most `width` characters, breaking at spaces and splitting words that are
 * longer than a line. Newlines in the input start new lines. Always returns at least one line.
 */
export function wrapText(text: string, width: number): string[] {
  const max = Math.max(1, Math.floor(width));
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter((w) => w !== '')) {
      let rest = word;
      while (rest.length > 0) {
        const sep = line === '' ? '' : ' ';
        if (line.length + sep.length + rest.length <= max) {
          line += sep + rest;
          rest = '';
        } else if (line !== '') {
          lines.push(line);
          line = '';
        } else {
          lines.push(rest.slice(0, max));
          rest = rest.slice(max);
        }
      }
    }
    lines.push(line);
  }
  return lines.length > 0 ? lines : [''];
}

/** Shortens text to `max` characters on one line, marking the cut with `...`. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 3))}...`;
}
