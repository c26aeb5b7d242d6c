/** Test helpers of the compression tests (excluded from the build, like every `*.test-support.ts`). */
import type { ToolRegistry } from '../types/tool.js';

/** `fetch_page({n})` answers page `n`: `PAGE-n-START`, `repeats` × 12 characters, `PAGE-n-END`. */
export function pageTool(repeats: number): ToolRegistry {
  return {
    list: () => [
      {
        name: 'fetch_page',
        description: 'Fetch a page.',
        parameters: { type: 'object', properties: { n: { type: 'number' } } },
      },
    ],
    execute: async (call) => {
      const n = (call.arguments as { n: number }).n;
      return { content: `PAGE-${n}-START ${'lorem ipsum '.repeat(repeats)} PAGE-${n}-END` };
    },
  };
}
