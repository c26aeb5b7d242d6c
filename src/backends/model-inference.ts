/**
 * Quick mode (`massgen --model NAME`): the backend a model name most likely belongs to. Returns
 * undefined for names that could be served by many backends (e.g. `llama3.2`).
 */
export function inferBackend(model: string): { type: string; provider?: string } | undefined {
  const name = model.toLowerCase();
  const rules: [RegExp, { type: string; provider?: string }][] = [
    [/^(gpt-|chatgpt-|o[1-9](-|$)|codex-)/, { type: 'openai' }],
    [/^claude-/, { type: 'claude' }],
    [/^gemini-/, { type: 'gemini' }],
    [/^grok-/, { type: 'grok' }],
    [/^glm-/, { type: 'chatcompletion', provider: 'zai' }],
    [/^(kimi-|moonshot-)/, { type: 'chatcompletion', provider: 'moonshot' }],
    [/^qwen/, { type: 'chatcompletion', provider: 'qwen' }],
    [/^deepseek-/, { type: 'chatcompletion', provider: 'deepseek' }],
    [
      /^(mistral-|codestral-|magistral-|ministral-|devstral-)/,
      { type: 'chatcompletion', provider: 'mistral' },
    ],
  ];
  return rules.find(([pattern]) => pattern.test(name))?.[1];
}
