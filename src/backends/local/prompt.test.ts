import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import { ChatMLChatWrapper, JinjaTemplateChatWrapper, SpecialTokensText } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { GENERIC_HEADERS, renderPrompt, toolCallText, toolInstructions, type PromptTool } from './prompt.js';

const conversation: LanguageModelV3Prompt = [
  { role: 'system', content: 'You are agent A.' },
  { role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'secret thoughts' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { query: 'sum' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'four' } },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'Now answer.' }] },
];

const lookup: PromptTool = {
  name: 'lookup',
  description: 'Looks something up.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

describe('renderPrompt, generic format', () => {
  it('renders ### sections and ends where the assistant reply begins', () => {
    const { text, stopTriggers, format } = renderPrompt(conversation, { format: { kind: 'generic' } });
    expect(format).toBe('generic');
    expect(text.toString()).toBe(
      [
        '### System:\nYou are agent A.',
        '### User:\nWhat is 2+2?',
        '### Assistant:\n{"tool":"lookup","arguments":{"query":"sum"}}',
        '### Tool result:\nResult of lookup:\nfour',
        '### User:\nNow answer.',
        '### Assistant:\n',
      ].join('\n\n'),
    );
    expect(stopTriggers).toContain('\n### User:');
    expect(stopTriggers).toHaveLength(Object.keys(GENERIC_HEADERS).length);
  });

  it('never replays reasoning', () => {
    const { text } = renderPrompt(conversation, { format: { kind: 'generic' } });
    expect(text.toString()).not.toContain('secret thoughts');
  });

  it('lists the offered tools in the system part and asks for one JSON object', () => {
    const { text } = renderPrompt(conversation, { format: { kind: 'generic' }, tools: [lookup] });
    const system = text.toString().split('\n\n### User:')[0] ?? '';
    expect(system).toContain('You are agent A.');
    expect(system).toContain('- lookup: Looks something up.');
    expect(system).toContain(`Arguments (JSON schema): ${JSON.stringify(lookup.inputSchema)}`);
    expect(system).toContain('{"tool": "<tool name>", "arguments":');
  });

  it('adds a system part for the tools when the prompt has none', () => {
    const { text } = renderPrompt([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], {
      format: { kind: 'generic' },
      tools: [lookup],
    });
    expect(text.toString().startsWith('### System:\nYou can use these tools:')).toBe(true);
  });

  it('leaves the tools out when toolChoice is none and names the forced tool', () => {
    const none = renderPrompt(conversation, {
      format: { kind: 'generic' },
      tools: [lookup],
      toolChoice: { type: 'none' },
    });
    expect(none.text.toString()).not.toContain('You can use these tools');
    expect(toolInstructions([lookup], { type: 'tool', toolName: 'lookup' })).toContain(
      'Use the lookup tool.',
    );
  });

  it('renders every kind of tool result and attached files as text', () => {
    const { text } = renderPrompt(
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'file', data: 'AAAA', mediaType: 'image/png', filename: 'cat.png' },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: '1',
              toolName: 'a',
              output: { type: 'error-text', value: 'boom' },
            },
            {
              type: 'tool-result',
              toolCallId: '2',
              toolName: 'b',
              output: { type: 'json', value: { x: 1 } },
            },
            { type: 'tool-result', toolCallId: '3', toolName: 'c', output: { type: 'execution-denied' } },
          ],
        },
      ],
      { format: { kind: 'generic' } },
    );
    const rendered = text.toString();
    expect(rendered).toContain('[attached file cat.png omitted: this model reads text only]');
    expect(rendered).toContain('Error from a:\nboom');
    expect(rendered).toContain('Result of b:\n{"x":1}');
    expect(rendered).toContain('c was not run.');
  });

  it('replays an unparseable tool-call input as the raw string the model wrote', () => {
    expect(toolCallText('t', '{"a":1}')).toBe('{"tool":"t","arguments":{"a":1}}');
    expect(toolCallText('t', 'not json')).toBe('{"tool":"t","arguments":"not json"}');
    expect(toolCallText('t', undefined)).toBe('{"tool":"t","arguments":{}}');
  });
});

describe('renderPrompt, chat template', () => {
  it("uses the model's template through its chat wrapper", () => {
    const { text, stopTriggers, format } = renderPrompt(conversation, {
      format: { kind: 'template', wrapper: new ChatMLChatWrapper() },
    });
    expect(format).toBe('template');
    const rendered = text.toString();
    expect(rendered).toContain('<|im_start|>system\nYou are agent A.<|im_end|>');
    expect(rendered).toContain(
      '<|im_start|>assistant\n{"tool":"lookup","arguments":{"query":"sum"}}<|im_end|>',
    );
    // The tool result and the next user message form one user turn, so roles keep alternating.
    expect(rendered).toContain('<|im_start|>user\nResult of lookup:\nfour\n\nNow answer.<|im_end|>');
    expect(rendered.endsWith('<|im_start|>assistant\n')).toBe(true);
    expect(stopTriggers.map(String)).toContain('<|im_end|>');
  });

  it('runs a Jinja template, keeping user text out of special tokens', () => {
    const template =
      "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
    const { text } = renderPrompt(
      [{ role: 'user', content: [{ type: 'text', text: 'Hi <|im_end|> there' }] }],
      { format: { kind: 'template', wrapper: new JinjaTemplateChatWrapper({ template }) } },
    );
    expect(text.toString()).toBe('<|im_start|>user\nHi <|im_end|> there<|im_end|>\n<|im_start|>assistant\n');
    const special = text.values.filter((value) => value instanceof SpecialTokensText).map(String);
    expect(special.join('')).not.toContain('there');
    expect(
      text.values.some((value) => typeof value === 'string' && value.includes('Hi <|im_end|> there')),
    ).toBe(true);
  });

  it('merges several system messages into the first system turn', () => {
    const { text } = renderPrompt(
      [
        { role: 'system', content: 'One.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'system', content: 'Two.' },
      ],
      { format: { kind: 'template', wrapper: new ChatMLChatWrapper() } },
    );
    expect(text.toString()).toContain('<|im_start|>system\nOne.\n\nTwo.<|im_end|>');
  });

  it('falls back to the generic format when the template cannot render the history', () => {
    const wrapper = new ChatMLChatWrapper();
    wrapper.generateContextState = () => {
      throw new Error('template refused');
    };
    const { text, format } = renderPrompt(conversation, { format: { kind: 'template', wrapper } });
    expect(format).toBe('generic');
    expect(text.toString().startsWith('### System:')).toBe(true);
  });
});
