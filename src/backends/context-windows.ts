/**
 * Context windows (tokens) of well-known models, by name prefix; the longest matching prefix wins.
 * Used to trim requests that would not fit; `backend.context_window` in the config overrides it.
 * Figures from the vendors' model pages.
 */
const KNOWN: readonly (readonly [string, number])[] = [
  ['gpt-4o', 128_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-5', 400_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude', 200_000],
  ['gemini-1.5', 1_048_576],
  ['gemini-2', 1_048_576],
  ['gemini-3', 1_048_576],
  ['grok-3', 131_072],
  ['grok-4', 256_000],
  ['deepseek', 128_000],
  ['llama-3', 128_000],
  ['qwen2.5', 32_768],
];

/** The model's context window in tokens, or undefined when it is not known. */
export function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().split('/').at(-1) ?? model.toLowerCase();
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}
