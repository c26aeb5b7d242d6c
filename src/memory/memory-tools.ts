import { z } from 'zod';
import { defineTool, type Tool } from '../tools/define-tool.js';
import type { SecretScrubber } from '../util/secret-scrubber.js';
import { memoryContextBlock } from './context-block.js';
import type { MemoryStore } from './types.js';

/** Names of the memory tools (a custom tool may not take them). */
export const MEMORY_TOOL_NAMES = ['search_memory', 'save_memory'] as const;

/** `search_memory` and `save_memory` over one store; every saved text goes through the run's scrubber. */
export function memoryTools(options: {
  store: MemoryStore;
  scrubber: SecretScrubber;
  runId: () => string;
  scope: 'project' | 'user';
  topK: number;
  budgetChars: number;
}): Tool[] {
  const { store, scrubber } = options;
  return [
    defineTool({
      name: 'search_memory',
      description:
        'Search what the team remembers from earlier runs (facts, decisions, user feedback). Returns the most relevant memories.',
      readOnly: true,
      parameters: z.object({ query: z.string().min(1).describe('What to look for, in a few words') }),
      async execute({ query }) {
        const hits = await store.search(query, options.topK);
        const block = memoryContextBlock(hits, Math.max(options.budgetChars, 500));
        return block === '' ? 'No memories match.' : block;
      },
    }),
    defineTool({
      name: 'save_memory',
      description:
        'Remember one fact or decision for future runs. Use for durable, reusable knowledge; never for secrets.',
      parameters: z.object({
        text: z.string().min(1).max(2000).describe('The fact or decision, standing alone'),
        kind: z.enum(['fact', 'decision', 'note']).default('fact'),
      }),
      async execute({ text, kind }, context) {
        const [saved] = await store.add([
          {
            text: scrubber.text(text),
            kind,
            runId: options.runId(),
            scope: options.scope,
            source: context.agentId,
          },
        ]);
        return `Saved memory ${saved!.id}.`;
      },
    }),
  ];
}
