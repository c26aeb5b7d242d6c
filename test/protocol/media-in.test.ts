/**
 * Media in (docs/multimodal.md), through the app and the core with scripted models: the question's
 * attachments reach each agent as its model takes them (a note otherwise, and a warning at start),
 * `read_media` and other tools hand media to the model as parts, a tool's provider cost counts toward
 * `max_cost_usd`, and the log records media by path and hash, never by their bytes.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import { Orchestrator, type AgentSpec } from '../../src/coordination/index.js';
import { sha256Hex } from '../../src/media/index.js';
import { tinyMp3, tinyPng } from '../../src/testing/media-fixtures.js';
import {
  ScriptedBackend,
  step,
  type RecordedRequest,
  type ScriptStep,
} from '../../src/testing/scripted-backend.js';
import { createAgentToolRegistry } from '../../src/tools/agent-tool-registry.js';
import { createPathChecker } from '../../src/tools/permissions/index.js';
import { createReadMediaToolProvider } from '../../src/tools/read-media/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { initialRunState, reduceRunState, totalCost } from '../../src/types/run-state.js';
import { formatCostOf } from '../../src/util/text.js';
import type { ChatMessage } from '../../src/types/messages.js';
import type { MediaKind, MediaPart } from '../../src/types/media.js';
import type { ToolRegistry } from '../../src/types/tool.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'massgen-media-in-')));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const toolNames = (r: RecordedRequest) => r.tools.map((t) => t.name);
const userMessage = (r: RecordedRequest) =>
  r.messages.find((m): m is Extract<ChatMessage, { role: 'user' }> => m.role === 'user');

/** An agent that answers once, then votes for `target`, and presents when asked; `first` runs before. */
function converging(name: string, target: string, first: ScriptStep[] = []): ScriptStep[] {
  let answered = false;
  const decide = (request: RecordedRequest): ScriptStep => {
    const tools = toolNames(request);
    if (!tools.includes('new_answer') && !tools.includes('vote')) return step.text(`Final from ${name}`);
    if (!answered && tools.includes('new_answer')) {
      answered = true;
      return step.answer(`Answer by ${name}`);
    }
    return step.vote(target, 'fine');
  };
  return [...first, ...Array.from({ length: 20 }, () => decide)];
}

const agent = (id: string, mediaIn: MediaKind[], steps: ScriptStep[], tools?: ToolRegistry): AgentSpec => ({
  id,
  backend: new ScriptedBackend(steps, { model: `model-${id}` }),
  mediaIn,
  ...(tools ? { tools } : {}),
});
const backendOf = (spec: AgentSpec) => spec.backend as ScriptedBackend;

describe('attachments reach each agent as its model takes them', () => {
  it('config attachments (beside the config file) and the caller’s: parts for the seer, a note for the blind, text inlined for both', async () => {
    const dir = tempDir();
    const png = tinyPng(3, 3, [10, 20, 30]);
    const mp3 = tinyMp3();
    mkdirSync(path.join(dir, 'team'));
    writeFileSync(path.join(dir, 'team', 'photo.png'), png);
    writeFileSync(path.join(dir, 'talk.mp3'), mp3);
    writeFileSync(path.join(dir, 'notes.md'), 'The launch moved to Tuesday.\n');
    writeFileSync(
      path.join(dir, 'team', 'team.yaml'),
      stringify({
        attachments: ['photo.png'],
        agents: ['seer', 'blind'].map((id) => ({
          id,
          backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' },
        })),
      }),
    );
    const seer = agent('seer', ['image', 'audio'], converging('seer', 'agent1'));
    const blind = agent('blind', [], converging('blind', 'agent1'));
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: 'team/team.yaml',
      question: 'What is in these?',
      attachments: ['talk.mp3', 'notes.md'],
      agents: [seer, blind],
      cwd: dir,
      env: {},
      logRoot: path.join(dir, 'logs'),
      onEvent: (event) => events.push(event),
    });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');

    const seen = userMessage(backendOf(seer).requests[0]!)!;
    expect(seen.media?.map((m) => [m.name, m.kind, m.mediaType])).toEqual([
      ['photo.png', 'image', 'image/png'],
      ['talk.mp3', 'audio', 'audio/mpeg'],
    ]);
    expect(Buffer.from(seen.media![0]!.data).equals(png)).toBe(true);
    expect(seen.content).toContain('Attached file notes.md:');
    expect(seen.content).toContain('The launch moved to Tuesday.');
    expect(seen.content).not.toContain('Not shown to you');

    const note = userMessage(backendOf(blind).requests[0]!)!;
    expect(note.media).toBeUndefined();
    expect(note.content).toContain('The launch moved to Tuesday.');
    expect(note.content).toMatch(
      /Not shown to you.*photo\.png \(image, image\/png\), talk\.mp3 \(audio, audio\/mpeg\)/,
    );

    // Named at the start: one warning per agent whose model cannot take an attached kind.
    const warnings = events.filter(
      (e): e is Extract<RunEvent, { type: 'run.warning' }> =>
        e.type === 'run.warning' && e.code === 'media_unsupported',
    );
    expect(warnings.map((w) => w.message)).toEqual([
      'agent blind (scripted/model-blind) cannot take images or audio files: it is not shown photo.png, talk.mp3 and reads a note naming them instead',
    ]);
    const started = events.find((e) => e.type === 'run.started');
    expect(started).toMatchObject({
      attachments: [
        {
          name: 'photo.png',
          path: path.join(dir, 'team', 'photo.png'),
          sha256: sha256Hex(png),
          bytes: png.length,
        },
        { name: 'talk.mp3', path: path.join(dir, 'talk.mp3'), sha256: sha256Hex(mp3) },
      ],
    });

    // The log keeps references: path and hash, never the bytes (raw or base64).
    const log = readFileSync(path.join(result.logDir!, 'events.jsonl'), 'utf8');
    expect(log).toContain(sha256Hex(png));
    expect(log).not.toContain(png.toString('base64'));
    expect(log).not.toContain(png.toString('base64').slice(8, 40));
    expect(log).not.toContain(mp3.toString('base64').slice(8, 40));
    expect(log).not.toContain('"data"');
  }, 60_000);

  it('bad inputs stop the run before any request, naming the file', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'empty.png'), '');
    writeFileSync(path.join(dir, 'photo.png'), 'I am text\n');
    const seer = agent('seer', ['image'], []);
    const config = {
      agents: [
        { id: 'seer', backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' } },
      ],
    };
    const run = (attachments: string[]) =>
      runMassGen({ config, question: 'q', attachments, agents: [seer], cwd: dir, env: {}, logging: false });
    await expect(run(['empty.png'])).rejects.toThrow('attachment empty.png: the file is empty (0 bytes)');
    await expect(run(['photo.png'])).rejects.toThrow(
      'attachment photo.png: its bytes are not an image (looks like text/plain)',
    );
    await expect(run(['missing.png'])).rejects.toThrow('attachment missing.png: file not found');
    await expect(
      runMassGen({
        config: { ...config, attachments: ['nowhere/photo.png'] },
        question: 'q',
        agents: [seer],
        cwd: dir,
        env: {},
        logging: false,
      }),
    ).rejects.toThrow(/attachment .*nowhere\/photo\.png: file not found/);
    expect(backendOf(seer).requests).toEqual([]);
  });
});

/** A tool that hands back an image and, optionally, says what the call cost at a provider. */
function imageTool(image: MediaPart, costUsd = 0): ToolRegistry {
  return {
    list: () => [
      { name: 'show_chart', description: 'Shows the chart.', parameters: { type: 'object', properties: {} } },
    ],
    execute: async () => ({
      content: 'Here is the chart.',
      media: [image],
      ...(costUsd > 0 ? { costUsd } : {}),
    }),
  };
}

const partOf = (name: string, data: Buffer): MediaPart => ({
  name,
  mediaType: 'image/png',
  kind: 'image',
  bytes: data.length,
  sha256: sha256Hex(data),
  data,
});

async function run(agents: AgentSpec[], settings: Record<string, unknown> = {}) {
  const events: RunEvent[] = [];
  const orchestrator = new Orchestrator({
    agents,
    settings: { agentTurnTimeoutMs: 10_000, orchestratorTimeoutMs: 20_000, ...settings },
  });
  for await (const event of orchestrator.run('Look at the chart.')) events.push(event);
  return events;
}

/** The tool results an agent's model was sent, once each (every request repeats the earlier ones). */
const toolMessages = (spec: AgentSpec) => {
  const byCall = new Map<string, Extract<ChatMessage, { role: 'tool' }>>();
  for (const request of backendOf(spec).requests)
    for (const m of request.messages)
      if (m.role === 'tool' && !byCall.has(m.toolCallId)) byCall.set(m.toolCallId, m);
  return [...byCall.values()];
};

describe('media from tools', () => {
  it('read_media: a workspace image reaches the model as a part; the event names it workspace-relative', async () => {
    const workspace = tempDir();
    const png = tinyPng(5, 5, [200, 0, 0]);
    writeFileSync(path.join(workspace, 'chart.png'), png);
    writeFileSync(path.join(workspace, 'notes.txt'), 'plain words');
    const checkPath = createPathChecker({ workspace, peerSnapshots: null, contextPaths: [], readOnly: [] });
    const registry = createAgentToolRegistry({
      providers: [createReadMediaToolProvider({ checkPath, workspace, media: { kinds: ['image'] } })],
      timeoutMs: 10_000,
      maxResultChars: 10_000,
    });
    const reader = agent(
      'reader',
      ['image'],
      converging('reader', 'agent1', [
        step.tool('read_media', { path: 'chart.png' }),
        step.tool('read_media', { path: 'notes.txt' }),
        step.tool('read_media', { path: '/etc/hostname' }),
      ]),
      registry,
    );
    const events = await run([reader]);
    const [chart, text, outside] = toolMessages(reader);
    expect(chart?.media?.map((m) => [m.name, m.mediaType, m.path])).toEqual([
      ['chart.png', 'image/png', 'chart.png'],
    ]);
    expect(Buffer.from(chart!.media![0]!.data).equals(png)).toBe(true);
    expect(text).toMatchObject({ isError: true, content: expect.stringContaining('read it with read_file') });
    expect(text?.media).toBeUndefined();
    expect(outside?.isError).toBe(true);
    const finished = events.filter((e) => e.type === 'tool.call.finished' && e.toolName === 'read_media');
    expect(finished[0]).toMatchObject({
      media: [
        { name: 'chart.png', path: 'chart.png', kind: 'image', bytes: png.length, sha256: sha256Hex(png) },
      ],
    });
    expect(JSON.stringify(events)).not.toContain(png.toString('base64').slice(8, 40));
  }, 60_000);

  it('tool media passes to a model that takes the kind and is replaced by a note for one that does not', async () => {
    const png = tinyPng(2, 2, [1, 2, 3]);
    const seer = agent(
      'seer',
      ['image'],
      converging('seer', 'agent1', [step.tool('show_chart', {})]),
      imageTool(partOf('chart.png', png)),
    );
    const deaf = agent(
      'deaf',
      ['audio'],
      converging('deaf', 'agent1', [step.tool('show_chart', {})]),
      imageTool(partOf('chart.png', png)),
    );
    await run([seer, deaf]);
    expect(toolMessages(seer)[0]?.media?.map((m) => m.name)).toEqual(['chart.png']);
    const note = toolMessages(deaf)[0]!;
    expect(note.media).toBeUndefined();
    expect(note.content).toMatch(
      /^Here is the chart\.\n\nNot shown to you.*chart\.png \(image, image\/png\)/,
    );
  }, 60_000);

  it('a tool’s provider cost adds to the agent’s cost and trips max_cost_usd', async () => {
    const png = tinyPng();
    const spender = agent(
      'spender',
      ['image'],
      [step.answer('A first answer'), step.tool('show_chart', {}), step.text('Presented')],
      imageTool(partOf('chart.png', png), 2),
    );
    const waiter = agent('waiter', ['image'], [step.hang()]);
    const events = await run([spender, waiter], { maxCostUsd: 1.5 });
    expect(events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'show_chart')).toMatchObject({
      costUsd: 2,
    });
    expect(events.find((e) => e.type === 'coordination.finished')).toMatchObject({ reason: 'budget' });
    const finished = events.find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({ status: 'completed', costUsd: { spender: 2 } });
    // Every view's state (terminal, web) counts the tool's cost too, priced model or not.
    const state = events.reduce(reduceRunState, initialRunState());
    expect(state.agents.find((a) => a.agentId === 'spender')?.costUsd).toBe(2);
    expect(totalCost(state)).toBe(2);
    expect(formatCostOf([{ usd: 2, priced: false }])).toBe('$2.00 + unknown');
    expect(formatCostOf([{ usd: 0, priced: false }])).toBe('cost unknown');
  }, 60_000);
});
