/**
 * A model that streams the API key of the environment, 8 characters a chunk (the fake server's
 * default), in its reasoning, its text, its answer, its vote reason and its final presentation. The
 * BUILT CLI (`--no-display`, with and without `--debug`, which adds the reasoning and every event) and
 * `massgen serve` (streamed, with the official `openai` client) must never show the key, nor any
 * 8-character piece of it that would let one rejoin it: not on stdout or stderr, not in `events.jsonl`
 * or `coordination_events.json`, not in the streamed `reasoning_content`/`content`, and not in what
 * the peers' models are sent.
 */
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startServeServer, type ServeServer } from '../../src/server/openai/serve-server.js';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  runCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
const servers: ServeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The environment's key: 48 characters, so six 8-character chunks when it starts on a boundary. */
const KEY = 'sk-proj-Qm4Tz8Wx2Lp6Nv0Rb3Yh7Kc5Jd9Fs1Ga8Ue2Xi4Oo';
/** Every 8-character piece of the key. */
const FRAGMENTS = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));
const leaks = (text: string) => FRAGMENTS.filter((f) => text.includes(f));

/**
 * alpha (agent1) leaks the key everywhere and wins; beta answers, then votes for alpha with a reason
 * that holds the key too. The text before each key is 8-aligned, so the key crosses no chunk edge…
 * and the odd-length prefixes of the other texts make it cross them.
 */
function leakyModel(body: FakeChatRequestBody): FakeResponse {
  const id = agentOf(body) ?? 'unknown';
  if (!toolNames(body).includes('new_answer'))
    return { reasoning: `Recall: ${KEY} is it.`, text: `Final: set OPENAI_API_KEY=${KEY} and go.` };
  if (votableIds(body).includes('agent1'))
    return {
      text: `${id} agrees.\n`,
      toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: `${id}: ${KEY} is the key` } }],
    };
  return {
    reasoning: `The key: ${KEY} (from the env)`,
    text: `${id} found it: ${KEY}\nSubmitting.\n`,
    toolCalls: [{ name: 'new_answer', arguments: { content: `Answer by ${id}: the key is ${KEY}.` } }],
  };
}

function workdir(): string {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: ['alpha', 'beta'].map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
    timeout_settings: { agent_turn_timeout_seconds: 20, orchestrator_timeout_seconds: 40 },
  });
  return cwd;
}

/**
 * What massgen put into the models' prompts: every message but the model's own earlier replies (an
 * agent's own conversation holds what it said itself, sent back to the model that said it).
 */
function promptsSent(): string {
  return fake.server.requests
    .flatMap((r) => (r.body?.messages ?? []).filter((m) => m.role !== 'assistant'))
    .map((m) => JSON.stringify(m))
    .join('\n');
}

describe('an API key streamed in 8-character chunks', () => {
  it.each([[['--no-display']], [['--no-display', '--debug']]])(
    'the CLI (%j) never shows it: stdout, stderr, events.jsonl and the peers’ prompts are scrubbed',
    async (flags) => {
      fake.server.setHandler(leakyModel);
      const cwd = workdir();
      const result = await runCli(['--config', 'config.yaml', ...flags, 'Which key?'], {
        cwd,
        env: { OPENAI_API_KEY: KEY },
      });
      expect(result.code, result.stderr).toBe(0);
      // The key was really streamed, in 8-character chunks, and shown masked.
      expect(result.stdout).toContain('[alpha] alpha found it: ***');
      expect(result.stdout).toContain('Final: set OPENAI_API_KEY=*** and go.');
      if (flags.includes('--debug')) expect(result.stdout).toContain('The key: *** (from the env)');
      expect(leaks(result.stdout)).toEqual([]);
      expect(leaks(result.stderr)).toEqual([]);

      const logDir = onlyLogDir(cwd);
      const journal = fs.readFileSync(path.join(logDir, 'events.jsonl'), 'utf8');
      expect(journal).toContain('"type":"agent.text.delta"');
      expect(leaks(journal)).toEqual([]);
      // Rejoining the deltas gives the masked text, not the key.
      const deltas = journal
        .split('\n')
        .filter((line) => line.includes('"agent.text.delta"'))
        .map((line) => (JSON.parse(line) as { text: string }).text)
        .join('');
      expect(deltas).toContain('alpha found it: ***');
      expect(leaks(deltas)).toEqual([]);
      expect(leaks(fs.readFileSync(path.join(logDir, 'coordination_events.json'), 'utf8'))).toEqual([]);
      for (const file of fs.readdirSync(logDir, { recursive: true, encoding: 'utf8' })) {
        const full = path.join(logDir, file);
        if (fs.statSync(full).isFile()) expect(leaks(fs.readFileSync(full, 'utf8')), file).toEqual([]);
      }

      // The peers read alpha's answer and beta's vote reason masked.
      const prompts = promptsSent();
      expect(prompts).toContain('Answer by alpha: the key is ***.');
      expect(leaks(prompts)).toEqual([]);
    },
  );

  it('massgen serve streams reasoning_content and content without it', async () => {
    fake.server.setHandler(leakyModel);
    const cwd = workdir();
    const server = await startServeServer({
      cwd,
      env: { OPENAI_API_KEY: KEY },
      config: 'config.yaml',
      port: 0,
      apiKey: 'serve-token-0123456789',
    });
    servers.push(server);
    const client = new OpenAI({ baseURL: server.url, apiKey: 'serve-token-0123456789', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'massgen',
      messages: [{ role: 'user', content: 'Which key?' }],
      stream: true,
    });
    let reasoning = '';
    let content = '';
    const chunks: string[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as
        { content?: string | null; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) reasoning += delta.reasoning_content;
      if (delta?.content) content += delta.content;
      chunks.push(JSON.stringify(chunk));
    }
    expect(content).toBe('Final: set OPENAI_API_KEY=*** and go.');
    expect(reasoning).toContain('alpha found it: ***');
    expect(leaks(reasoning)).toEqual([]);
    expect(leaks(chunks.join('\n'))).toEqual([]);
    expect(leaks(promptsSent())).toEqual([]);
  });
});
