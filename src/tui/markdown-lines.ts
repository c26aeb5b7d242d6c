import { Lexer, type Token, type Tokens } from 'marked';
import { fitStart, textWidth } from '../util/text.js';
import { sanitize } from './format.js';
import type { Span, StyledLine } from './styled-line.js';

/**
 * Markdown as the terminal shows it: headings, emphasis, inline code, links, lists, code blocks,
 * quotes, rules and tables become styled lines (one terminal row each, wrapped to the width).
 *
 * Why this and not `marked-terminal`: that renders to ANSI strings (chalk, highlight.js, emoji and table
 * packages — a lot to load for one answer), and its escape sequences would reach the terminal through
 * Ink as opaque text. Here `marked` only parses; the output is plain text plus style flags that Ink turns
 * into massgen's own styling. The text is made inert ({@link sanitize}) before and after parsing, so
 * nothing in an answer — raw HTML, entities, a link — can produce an escape sequence of its own.
 */

type Style = Omit<Span, 'text'>;

const HEADING: Style[] = [{ bold: true, color: 'cyan' }, { bold: true, color: 'cyan' }, { bold: true }];
const CODE: Style = { color: 'yellow' };
const LINK: Style = { color: 'blue', underline: true };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' };
/** The few entities Markdown text commonly carries; the result is made inert again. */
const decode = (text: string): string =>
  sanitize(text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? ''));

/** Inline tokens as styled spans. */
function inlineSpans(tokens: readonly Token[] | undefined, style: Style = {}): Span[] {
  const out: Span[] = [];
  for (const token of tokens ?? []) {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'strong':
        out.push(...inlineSpans(t.tokens, { ...style, bold: true }));
        break;
      case 'em':
        out.push(...inlineSpans(t.tokens, { ...style, italic: true }));
        break;
      case 'del':
        out.push(...inlineSpans(t.tokens, { ...style, strikethrough: true }));
        break;
      case 'codespan':
        out.push({ ...style, ...CODE, text: decode(String(t.text)) });
        break;
      case 'br':
        out.push({ text: '\n' });
        break;
      case 'link': {
        const label = inlineSpans(t.tokens, { ...style, ...LINK });
        const href = sanitize(String(t.href ?? ''));
        out.push(...label);
        if (href !== '' && label.map((s) => s.text).join('') !== href)
          out.push({ dim: true, text: ` (${href})` });
        break;
      }
      case 'image':
        out.push({
          ...style,
          dim: true,
          text: `[image: ${decode(String(t.text ?? ''))}] (${sanitize(String(t.href ?? ''))})`,
        });
        break;
      case 'text':
        if (t.tokens && t.tokens.length > 0) out.push(...inlineSpans(t.tokens, style));
        else out.push({ ...style, text: decode(String(t.text)) });
        break;
      case 'escape':
        out.push({ ...style, text: sanitize(String(t.text)) });
        break;
      default:
        // Inline HTML and anything unknown: shown as written.
        out.push({ ...style, text: sanitize(String(t.raw ?? t.text ?? '')) });
    }
  }
  return out;
}

const sameStyle = (a: Span, b: Span): boolean =>
  a.color === b.color &&
  a.dim === b.dim &&
  a.bold === b.bold &&
  a.italic === b.italic &&
  a.underline === b.underline &&
  a.strikethrough === b.strikethrough;

/** A line of spans, neighbours of the same style joined (fewer pieces to render). */
function lineOf(spans: Span[]): StyledLine {
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && sameStyle(last, span)) merged[merged.length - 1] = { ...last, text: last.text + span.text };
    else merged.push({ ...span });
  }
  return { text: merged.map((s) => s.text).join(''), spans: merged };
}

/**
 * Spans wrapped to `width` columns at spaces (a word longer than a line is cut), each row starting
 * with `first` (then `rest`) as its prefix. A `\n` span breaks the line.
 */
function wrapSpans(spans: Span[], width: number, first: Span[] = [], rest: Span[] = first): StyledLine[] {
  const out: StyledLine[] = [];
  const prefixWidth = (p: Span[]) => textWidth(p.map((s) => s.text).join(''));
  let row: Span[] = [...first];
  let used = prefixWidth(first);
  let room = Math.max(1, width - used);
  let empty = true;
  const flush = () => {
    out.push(lineOf(trimEnd(row)));
    row = [...rest];
    used = prefixWidth(rest);
    room = Math.max(1, width - used);
    empty = true;
  };
  for (const span of spans) {
    const { text, ...style } = span;
    for (const piece of text.split(/(\n| +)/)) {
      if (piece === '') continue;
      if (piece === '\n') {
        flush();
        continue;
      }
      if (/^ +$/.test(piece)) {
        // Spaces inside a line are kept as written; at the start of a wrapped row they go.
        const room = Math.min(piece.length, width - used);
        if (!empty && room > 0) {
          row.push({ ...style, text: ' '.repeat(room) });
          used += room;
        }
        continue;
      }
      let word = piece;
      while (word !== '') {
        const w = textWidth(word);
        if (used + w <= width || (empty && w <= room)) {
          row.push({ ...style, text: word });
          used += w;
          empty = false;
          break;
        }
        if (!empty) {
          flush();
          continue;
        }
        // Longer than a whole row: cut it.
        const head = fitStart(word, room) || word.slice(0, 1);
        row.push({ ...style, text: head });
        word = word.slice(head.length);
        flush();
      }
    }
  }
  if (!empty || out.length === 0) out.push(lineOf(trimEnd(row)));
  return out;
}

function trimEnd(spans: Span[]): Span[] {
  const out = [...spans];
  while (out.length > 0 && /^ *$/.test(out.at(-1)?.text ?? '') && out.length > 1) out.pop();
  return out;
}

/** Block tokens as lines, at `width`. */
function blockLines(tokens: readonly Token[], width: number): StyledLine[] {
  const out: StyledLine[] = [];
  const gap = () => {
    if (out.length > 0 && out.at(-1)?.text !== '') out.push({ text: '' });
  };
  for (const token of tokens) {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'space':
        break;
      case 'heading': {
        gap();
        const style = HEADING[Math.min(HEADING.length, Number(t.depth)) - 1] ?? {};
        out.push(...wrapSpans(inlineSpans(t.tokens, style), width));
        break;
      }
      case 'paragraph':
        gap();
        out.push(...wrapSpans(inlineSpans(t.tokens), width));
        break;
      case 'text':
        // Tight list items hold text tokens instead of paragraphs.
        out.push(...wrapSpans(inlineSpans(t.tokens?.length ? t.tokens : [token]), width));
        break;
      case 'code': {
        gap();
        if (t.lang) out.push({ text: sanitize(String(t.lang)), dim: true });
        for (const text of sanitize(String(t.text)).split('\n'))
          out.push(...wrapSpans([{ ...CODE, text }], width, [{ dim: true, text: '│ ' }]));
        break;
      }
      case 'blockquote':
        gap();
        for (const l of blockLines(t.tokens ?? [], Math.max(4, width - 2)))
          out.push(
            lineOf([
              { dim: true, text: '│ ' },
              ...(l.spans ?? [{ text: l.text }]).map((s) => ({ ...s, italic: true })),
            ]),
          );
        break;
      case 'list':
        gap();
        out.push(...listLines(token as Tokens.List, width));
        break;
      case 'hr':
        gap();
        out.push({ text: '─'.repeat(Math.max(1, Math.min(width, 40))), dim: true });
        break;
      case 'table':
        gap();
        out.push(...tableLines(token as Tokens.Table, width));
        break;
      default:
        // Block HTML and anything unknown: shown as written.
        gap();
        out.push(...wrapSpans([{ text: sanitize(String(t.raw ?? t.text ?? '').trimEnd()) }], width));
    }
  }
  return out;
}

function listLines(list: Tokens.List, width: number): StyledLine[] {
  const out: StyledLine[] = [];
  const start = typeof list.start === 'number' ? list.start : 1;
  list.items.forEach((item, i) => {
    const marker = `${list.ordered ? `${start + i}.` : '•'}${item.task ? (item.checked ? ' [x]' : ' [ ]') : ''} `;
    const pad = ' '.repeat(textWidth(marker));
    // A tight list keeps its items' lines together (a nested list too); a loose one keeps paragraphs apart.
    const body = blockLines(item.tokens, Math.max(4, width - pad.length)).filter(
      (l, j, all) => l.text !== '' || (list.loose && j > 0 && j < all.length - 1),
    );
    body.forEach((l, j) => {
      const prefix: Span = j === 0 ? { text: marker, color: 'cyan' } : { text: pad };
      out.push(lineOf([prefix, ...(l.spans ?? [{ text: l.text, ...styleOf(l) }])]));
    });
    if (list.loose && i < list.items.length - 1) out.push({ text: '' });
  });
  return out;
}

const styleOf = (l: StyledLine): Style => ({
  ...(l.color ? { color: l.color } : {}),
  ...(l.dim ? { dim: true } : {}),
  ...(l.bold ? { bold: true } : {}),
  ...(l.italic ? { italic: true } : {}),
});

/** A table as aligned rows when it fits, else one `header: value` block per row. */
function tableLines(table: Tokens.Table, width: number): StyledLine[] {
  const text = (cell: Tokens.TableCell) =>
    inlineSpans(cell.tokens)
      .map((s) => s.text)
      .join('');
  const header = table.header.map(text);
  const rows = table.rows.map((row) => row.map(text));
  const widths = header.map((h, c) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[c] ?? ''))));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * Math.max(0, widths.length - 1);
  if (total <= width) {
    const format = (cells: string[]) =>
      cells.map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - textWidth(c)))).join(' │ ');
    return [
      { text: format(header), bold: true },
      { text: widths.map((w) => '─'.repeat(w)).join('─┼─'), dim: true },
      ...rows.map((r) => ({ text: format(r) })),
    ];
  }
  return rows.flatMap((r, i) => [
    ...(i > 0 ? [{ text: '' }] : []),
    ...r.flatMap((c, j) => wrapSpans([{ bold: true, text: `${header[j] ?? ''}: ` }, { text: c }], width)),
  ]);
}

/**
 * `markdown` (already inert: the live view's store makes every event inert) as styled terminal lines
 * at `width` columns. Never throws: text the parser cannot handle is shown as it is.
 */
export function markdownLines(markdown: string, width: number): StyledLine[] {
  const w = Math.max(10, Math.floor(width));
  try {
    // Line breaks are kept (models write line by line); a backslash right after a shown control
    // character (`␛\`, the string terminator) is text, not a Markdown escape or line break.
    // Tabs become two spaces, as everywhere in the live view (a tab's width depends on the column).
    const source = sanitize(markdown.trim())
      .replace(/\t/g, '  ')
      .replace(/([\u2400-\u2421])\\/g, '$1\\\\');
    const lines = blockLines(new Lexer({ gfm: true, breaks: true }).lex(source), w);
    return lines.length > 0 ? lines : [{ text: '' }];
  } catch {
    return sanitize(markdown.trim())
      .split('\n')
      .flatMap((text) => wrapSpans([{ text }], w));
  }
}
