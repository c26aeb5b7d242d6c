/**
 * An image attachment reaches a mixed team (docs/multimodal.md): two agents whose models see images
 * (OpenAI through the Responses API, Claude through the Messages API — the real AI SDK providers
 * against the local fakes) get it as their vendor's image part, byte for byte; the third agent's model
 * reads text only, so its request carries no image and a note naming the file — and the run completes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMassGen, type RunEvent } from '../../src/index.js';
import { anthropicMessagesDialect } from '../../src/testing/fake-server/anthropic-messages.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { openAIChatDialect } from '../../src/testing/fake-server/openai-chat.js';
import { openAIResponsesDialect } from '../../src/testing/fake-server/openai-responses.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer, type FakeServer } from '../../src/testing/fake-server/server.js';
import { tinyPng } from '../../src/testing/media-fixtures.js';
import { makeWorkdir, removeTempDirs } from './cli-harness.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer([openAIResponsesDialect, anthropicMessagesDialect, openAIChatDialect]);
});
afterAll(async () => {
  await server.close();
  removeTempDirs();
});
beforeEach(() => server.reset());

const who = (view: FakeRequestView) => /You are (\w+)\./.exec(view.system)?.[1] ?? '?';

/** Each agent answers with what it was shown, then everyone votes for agent1's answer. */
function converge(view: FakeRequestView): FakeResponse {
  const name = who(view);
  if (view.toolNames.length === 0) return { text: `Final from ${name}.` };
  if (!view.toolNames.includes('vote')) {
    const seen = view.media.map((m) => m.mediaType).join(', ') || 'no image';
    return { toolCalls: [{ name: 'new_answer', arguments: { content: `${name} saw ${seen}.` } }] };
  }
  const target = view.votableIds.includes('agent1') ? 'agent1' : (view.votableIds[0] ?? 'agent1');
  return { toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'it saw the chart' } }] };
}

describe('an image attachment and a team where one model cannot see images', () => {
  it('reaches the two vision models as their vendor’s image part and the third as a note; the run completes', async () => {
    server.setHandler((_body, _index, view) => converge(view));
    const png = tinyPng(3, 2, [0, 128, 255]);
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: {
        agents: [
          {
            id: 'gpt',
            backend: { type: 'openai', model: 'gpt-5-mini', base_url: `${server.origin}/v1` },
            system_message: 'You are gpt.',
          },
          {
            id: 'sonnet',
            backend: { type: 'claude', model: 'claude-sonnet-4-5', base_url: `${server.origin}/v1` },
            system_message: 'You are sonnet.',
          },
          {
            id: 'blind',
            // OpenAI's GPT-3.5 reads text only: the backend's mediaIn says so.
            backend: {
              type: 'chatcompletion',
              provider: 'openai',
              model: 'gpt-3.5-turbo',
              base_url: `${server.origin}/v1`,
            },
            system_message: 'You are blind.',
          },
        ],
      },
      question: 'What does the chart show?',
      attachments: [{ name: 'chart.png', data: png }],
      cwd: makeWorkdir(),
      env: { OPENAI_API_KEY: 'sk-test-0000', ANTHROPIC_API_KEY: 'sk-ant-test-0000' },
      logging: false,
      onEvent: (event) => events.push(event),
    });

    expect(result.status).toBe('completed');
    expect(server.requests.every((r) => r.scripted)).toBe(true);
    const first = (name: string) => server.requests.find((r) => r.view !== null && who(r.view) === name)!;

    for (const [name, dialect, part] of [
      ['gpt', 'openai-responses', 'input_image'],
      ['sonnet', 'anthropic-messages', 'image'],
    ] as const) {
      const request = first(name);
      expect(request.dialect).toBe(dialect);
      expect(request.view?.media.map((m) => [m.part, m.mediaType])).toEqual([[part, 'image/png']]);
      expect(Buffer.from(request.view!.media[0]!.data).equals(png)).toBe(true);
      expect(request.view?.text).not.toContain('Not shown to you');
    }

    const blind = first('blind');
    expect(blind.dialect).toBe('openai-chat');
    expect(blind.view?.media).toEqual([]);
    expect(JSON.stringify(blind.body)).not.toContain('image_url');
    expect(blind.view?.text).toContain('Not shown to you');
    expect(blind.view?.text).toContain('chart.png (image, image/png)');

    // The blind agent is named at the start, once.
    const warnings = events.filter((e) => e.type === 'run.warning' && e.code === 'media_unsupported');
    expect(warnings.map((e) => (e as { message: string }).message)).toEqual([
      expect.stringMatching(/^agent blind \(chatcompletion\/gpt-3\.5-turbo\) cannot take .*chart\.png/),
    ]);
    expect(events.find((e) => e.type === 'run.started')).toMatchObject({
      attachments: [expect.objectContaining({ name: 'chart.png', mediaType: 'image/png', kind: 'image' })],
    });
  });
});
