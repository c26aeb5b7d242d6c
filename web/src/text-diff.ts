import { diffLines, diffWordsWithSpace } from 'diff';

/** A run of text that both versions share, or that only the old (`removed`) or new (`added`) one has. */
export interface DiffPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/**
 * What changed between two versions of an answer: lines first (jsdiff's `diffLines`), and where a
 * block of lines was replaced by another, the words that changed inside it, so a one-word edit in a
 * long paragraph shows as that word, not as the paragraph twice.
 */
export function textDiff(before: string, after: string): DiffPart[] {
  const lines = diffLines(before, after);
  const out: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    if (text === '') return;
    const last = out.at(-1);
    if (last && last.kind === kind) last.text += text;
    else out.push({ kind, text });
  };
  for (let i = 0; i < lines.length; i++) {
    const part = lines[i];
    if (!part) continue;
    const next = lines[i + 1];
    if (part.removed && next?.added) {
      for (const word of diffWordsWithSpace(part.value, next.value))
        push(word.added ? 'added' : word.removed ? 'removed' : 'same', word.value);
      i++;
    } else push(part.added ? 'added' : part.removed ? 'removed' : 'same', part.value);
  }
  return out;
}

/** Words added and removed, for a one-line summary. */
export function diffStats(parts: readonly DiffPart[]): { added: number; removed: number } {
  const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
  let added = 0;
  let removed = 0;
  for (const p of parts) {
    if (p.kind === 'added') added += words(p.text);
    if (p.kind === 'removed') removed += words(p.text);
  }
  return { added, removed };
}
