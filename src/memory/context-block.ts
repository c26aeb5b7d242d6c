import type { MemoryHit } from './types.js';

/** The heading agents see above the remembered items. */
export const MEMORY_HEADING = 'Memories from earlier runs (may be outdated; verify before relying on them):';

/**
 * The memories as a block for an agent's context, best first, never longer than `budgetChars`
 * (heading included): an item that does not fit whole is left out. Empty when nothing fits.
 */
export function memoryContextBlock(hits: readonly MemoryHit[], budgetChars: number): string {
  let block = MEMORY_HEADING;
  let used = 0;
  for (const hit of hits) {
    const line = `\n- [${hit.kind}, ${hit.createdAt.slice(0, 10)}, run ${hit.runId}] ${hit.text.replace(/\s+/g, ' ').trim()}`;
    if (block.length + line.length > budgetChars) continue;
    block += line;
    used++;
  }
  return used === 0 ? '' : block;
}
