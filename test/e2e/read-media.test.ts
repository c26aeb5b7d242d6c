/**
 * `read_media` in a real run (the app, the real AI SDK provider, the local fake OpenAI server): an
 * agent with a workspace whose model takes images is offered the tool, reads a PNG from a context
 * path, and the next request carries the picture as an image part — byte for byte — while the event
 * log records only its reference. An agent whose model takes no media is not offered the tool.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMassGen, type RunEvent } from '../../src/index.js';
import { sha256Hex } from '../../src/media/index.js';
import { tinyPng } from '../../src/testing/media-fixtures.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import { makeWorkdir, useFakeServer } from './cli-harness.js';

const fake = useFakeServer();

describe('read_media', () => {
  it('shows a context-path image to a vision model as an image part; a text-only model is not offered the tool', async () => {
    const cwd = makeWorkdir();
    mkdirSync(path.join(cwd, 'assets'));
    const png = tinyPng(6, 4, [0, 200, 0]);
    const chart = path.join(cwd, 'assets', 'chart.png');
    writeFileSync(chart, png);
    let asked = false;
    fake.server.setHandler((_body, _index, view: FakeRequestView | null): FakeResponse => {
      if (!view) return { text: 'ok' };
      if (view.toolNames.includes('read_media') && !asked) {
        asked = true;
        return { toolCalls: [{ name: 'read_media', arguments: { path: chart } }] };
      }
      if (view.toolNames.length === 0) return { text: 'Final: the chart is green.' };
      const who = /You are (\w+)\./.exec(view.system)?.[1] ?? '?';
      if (!view.toolNames.includes('vote'))
        return { toolCalls: [{ name: 'new_answer', arguments: { content: `${who}: the chart is green.` } }] };
      const target = view.votableIds.includes('agent1') ? 'agent1' : (view.votableIds[0] ?? 'agent1');
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'right' } }] };
    });
    const events: RunEvent[] = [];
    const backend = (model: string) => ({
      type: 'chatcompletion',
      provider: 'openai',
      model,
      base_url: fake.server.url,
    });
    const result = await runMassGen({
      config: {
        agents: [
          { id: 'seer', backend: { ...backend('gpt-4o'), cwd: 'seer' }, system_message: 'You are seer.' },
          {
            id: 'blind',
            backend: { ...backend('gpt-3.5-turbo'), cwd: 'blind' },
            system_message: 'You are blind.',
          },
        ],
        orchestrator: { context_paths: [{ path: 'assets' }] },
      },
      question: 'What colour is the chart in assets?',
      cwd,
      env: { OPENAI_API_KEY: 'sk-test-read-media' },
      onEvent: (event) => events.push(event),
    });
    expect(result.error).toBeUndefined();

    const seer = fake.server.requests.filter((r) => r.view?.system.includes('You are seer.'));
    const blind = fake.server.requests.filter((r) => r.view?.system.includes('You are blind.'));
    expect(seer[0]?.view?.toolNames).toContain('read_media');
    expect(blind.every((r) => !r.view?.toolNames.includes('read_media'))).toBe(true);
    const shown = seer.find((r) => (r.view?.media.length ?? 0) > 0)?.view?.media[0];
    expect(shown).toMatchObject({ mediaType: 'image/png', kind: 'image' });
    expect(Buffer.from(shown!.data).equals(png)).toBe(true);

    const finished = events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'read_media');
    expect(finished).toMatchObject({
      isError: false,
      media: [{ name: 'chart.png', path: chart, kind: 'image', sha256: sha256Hex(png), bytes: png.length }],
    });
    const log = readFileSync(path.join(result.logDir!, 'events.jsonl'), 'utf8');
    expect(log).toContain(sha256Hex(png));
    expect(log).not.toContain(png.toString('base64').slice(8, 40));
  });
});
