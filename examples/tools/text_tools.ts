// Custom tools for examples/tools/custom_tools.yaml. A tool is a function of (arguments, context);
// what it returns is sent to the model (strings as they are, anything else as JSON), and what it
// throws comes back to the model as a tool error.
import { z } from 'zod';
import { defineTool } from 'massgen/tools';

interface WordCountArgs {
  text: string;
}

export function wordCount({ text }: WordCountArgs): { words: number; characters: number } {
  const words = text.trim() === '' ? 0 : text.trim().split(/\s+/).length;
  return { words, characters: text.length };
}

export const readingTime = defineTool({
  name: 'reading_time',
  description: 'Estimate how long a text takes to read, in minutes.',
  parameters: z.object({
    text: z.string(),
    words_per_minute: z.number().int().positive().default(230),
  }),
  readOnly: true,
  execute: ({ text, words_per_minute }) => {
    const words = wordCount({ text }).words;
    return `${Math.max(1, Math.round(words / words_per_minute))} min (${words} words at ${words_per_minute} wpm)`;
  },
});
