import { describe, expect, it } from 'vitest';
import { inferBackend } from './model-inference.js';

describe('inferBackend (quick mode)', () => {
  it.each([
    ['gpt-4o-mini', { type: 'openai' }],
    ['o3', { type: 'openai' }],
    ['o4-mini', { type: 'openai' }],
    ['claude-sonnet-4-5', { type: 'claude' }],
    ['gemini-2.5-flash', { type: 'gemini' }],
    ['grok-4', { type: 'grok' }],
    ['glm-4.6', { type: 'chatcompletion', provider: 'zai' }],
    ['kimi-k2-turbo-preview', { type: 'chatcompletion', provider: 'moonshot' }],
    ['qwen3-max', { type: 'chatcompletion', provider: 'qwen' }],
    ['deepseek-chat', { type: 'chatcompletion', provider: 'deepseek' }],
    ['mistral-large-latest', { type: 'chatcompletion', provider: 'mistral' }],
  ])('%s → %o', (model, expected) => {
    expect(inferBackend(model)).toEqual(expected);
  });

  it.each(['llama3.2', 'mixtral', 'omni', 'my-model'])('%s is not guessed', (model) => {
    expect(inferBackend(model)).toBeUndefined();
  });
});
