import { z } from 'zod';
import { defineTool, type Tool } from '../tools/define-tool.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { memoryContextBlock } from './context-block.js';
import type { MemoryStore } from './types.js';

/** Names of the memory tools (a custom tool may not take them). */
export const MEMORY_TOOL_NAMES = ['search_memory', 'save_memory'] as const;

/**
 * What becomes of an agent's `save_memory` call in this run: `auto` saves it; `ask` saves it once a
 * person approved it (the call is held by the permission engine before it gets here); `refuse` is
 * `memory.save: ask` with nobody to ask, so every call is refused; `off` offers no such tool.
 */
export type MemorySaveMode = 'auto' | 'ask' | 'refuse' | 'off';

/** What an agent is told when `save_memory` is refused for want of someone to approve it. */
export const SAVE_REFUSED =
  'not saved: memory.save is ask, so each memory needs a person to approve it, and nobody can approve ' +
  'in this run (no terminal or approver). Continue without saving it.';

/** Fewest characters `search_memory` may return, whatever the run's budget (the framing takes some). */
const MIN_SEARCH_CHARS = 1000;

/** `search_memory` and (unless `save` is `off`) `save_memory` over one store; saved text is scrubbed. */
export function memoryTools(options: {
  store: MemoryStore;
  scrubber: SecretScrubber;
  runId: () => string;
  scope: 'project' | 'user';
  topK: number;
  budgetChars: number;
  save: MemorySaveMode;
}): Tool[] {
  const { store, scrubber } = options;
  const search = defineTool({
    name: 'search_memory',
    description:
      'Search the notes earlier runs saved (facts, decisions, user feedback). Returns the most relevant notes as quoted data with their origin.',
    readOnly: true,
    parameters: z.object({ query: z.string().min(1).describe('What to look for, in a few words') }),
    async execute({ query }) {
      const hits = await store.search(query, options.topK);
      const block = memoryContextBlock(hits, Math.max(options.budgetChars, MIN_SEARCH_CHARS));
      return block === '' ? 'No memories match.' : block;
    },
  });
  if (options.save === 'off') return [search];
  const save = defineTool({
    name: 'save_memory',
    description:
      'Remember one fact or decision for future runs. Use for durable, reusable knowledge; never for secrets.' +
      (options.save === 'auto' ? '' : ' Each save needs a person to approve it.'),
    parameters: z.object({
      text: z.string().min(1).max(2000).describe('The fact or decision, standing alone'),
      kind: z.enum(['fact', 'decision', 'note']).default('fact'),
    }),
    async execute({ text, kind }, context) {
      if (options.save === 'refuse') throw new Error(SAVE_REFUSED);
      const [saved] = await store.add([
        {
          text: scrubber.text(text),
          kind,
          runId: options.runId(),
          agentId: context.agentId,
          scope: options.scope,
          source: 'save_memory',
        },
      ]);
      return `Saved memory ${saved!.id}.`;
    },
  });
  return [search, save];
}
