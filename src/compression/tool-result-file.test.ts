/**
 * Large tool results to files: a 100k-token result reaches the model as its head and tail with the
 * file's path, and the model reads the rest with read_file in pages. The file is written only inside
 * the workspace's `.tool_results/`, whatever the tool's name or call id say, and never with a secret.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Orchestrator } from '../coordination/orchestrator.js';
import { EventRecorder } from '../testing/event-recorder.js';
import { ScriptedBackend, type RecordedRequest, type ScriptStep } from '../testing/scripted-backend.js';
import { createAgentToolRegistry } from '../tools/agent-tool-registry.js';
import { createFilesystemToolProvider } from '../tools/filesystem/filesystem-tool-provider.js';
import { createPathChecker } from '../tools/permissions/check-path.js';
import type { ToolProvider } from '../tools/tool-provider.js';
import { createSecretScrubber } from '../util/secret-scrubber.js';
import { TOOL_RESULTS_DIR, toolResultFiles } from './tool-result-file.js';

const SECRET = 'sk-live-7f3a9c2b1d8e4f60a5b7';
/** 4,000 numbered lines of 100 characters: 400,000 characters, about 100,000 tokens. */
const LINES = Array.from(
  { length: 4_000 },
  (_, i) => `line ${String(i + 1).padStart(5, '0')} ${'x'.repeat(89)}`,
);
const BIG = [...LINES.slice(0, 2_000), `token=${SECRET}`, ...LINES.slice(2_000)].join('\n');

let root: string;
let workspace: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'massgen-spill-')));
  workspace = path.join(root, 'ws');
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const spill = () =>
  toolResultFiles({
    workspace,
    thresholdTokens: 20_000,
    scrub: createSecretScrubber([SECRET]).text,
    maxNoteChars: 20_000,
  });

const dumpTool: ToolProvider = {
  name: 'dump',
  tools: () => [
    { name: 'dump_logs', description: 'Dump the logs.', parameters: { type: 'object', properties: {} } },
  ],
  start: async () => undefined,
  close: async () => undefined,
  call: async () => ({ content: BIG }),
};

describe('large tool results to files', () => {
  it('a 100k-token result reaches the model as head and tail plus a file, which it then reads in pages', async () => {
    const tools = createAgentToolRegistry({
      providers: [
        createFilesystemToolProvider({
          checkPath: createPathChecker({ workspace, peerSnapshots: null, contextPaths: [], readOnly: [] }),
          workspace,
        }),
        dumpTool,
      ],
      timeoutMs: 30_000,
      maxResultChars: 20_000,
      oversized: spill(),
    });
    const lastTool = (request: RecordedRequest) =>
      request.messages.filter((m) => m.role === 'tool').at(-1)!.content;
    const readMiddle = (request: RecordedRequest): ScriptStep => {
      const file = /saved whole to (\.tool_results\/\S+\.txt)/.exec(lastTool(request))?.[1] ?? 'missing';
      return {
        toolCalls: [{ name: 'read_file', arguments: { path: file, offset_line: 1500, max_lines: 3 } }],
      };
    };
    const model = new ScriptedBackend([
      { toolCalls: [{ name: 'dump_logs', arguments: {}, id: 'call_1' }] },
      readMiddle,
      { text: 'Final: the logs are fine.' },
    ]);
    const orchestrator = new Orchestrator({
      agents: [{ id: 'reader', backend: model, tools }],
      settings: { agentTurnTimeoutMs: 30_000, orchestratorTimeoutMs: 60_000 },
    });
    const recorder = await EventRecorder.record(orchestrator.run('Are the logs fine?'));
    expect(recorder.finished).toMatchObject({
      status: 'completed',
      finalAnswer: 'Final: the logs are fine.',
    });

    const note = lastTool(model.requests[1]!);
    expect(note.length).toBeLessThanOrEqual(20_000);
    expect(note).toContain('saved whole to .tool_results/dump_logs-call_1.txt');
    expect(note).toMatch(/This result is 40\d,\d{3} characters \(about 10\d,\d{3} tokens, 4,001 lines\)/);
    expect(note).toContain('line 00001 ');
    expect(note).toContain('line 04000 ');
    expect(note).not.toContain('line 01500 ');
    expect(note).toMatch(
      /Read the rest with read_file \(path "\.tool_results\/dump_logs-call_1\.txt", offset_line and max_lines/,
    );
    // The model read a page from the middle of the file.
    const page = lastTool(model.requests[2]!);
    expect(page).toMatch(/^\[\.tool_results\/dump_logs-call_1\.txt: lines 1500-1502 of 4001; call read_file/);
    expect(page).toContain('line 01500 ');
    // The file holds the whole result, with the secret scrubbed.
    const saved = await readFile(path.join(workspace, TOOL_RESULTS_DIR, 'dump_logs-call_1.txt'), 'utf8');
    expect(saved).toContain('line 02000 ');
    expect(saved).toContain('line 04000 ');
    expect(saved).not.toContain(SECRET);
    expect(saved).toContain('token=***');
  });

  it('a tool name or call id with ../ or / cannot put the file anywhere but .tool_results', async () => {
    const handled = await spill().handle(
      { id: '../../../escaped', name: '../../a/b/../tool', arguments: {} },
      BIG,
    );
    expect(handled).toMatch(/saved whole to \.tool_results\/[A-Za-z0-9_-]+\.txt /);
    expect(await readdir(path.join(workspace, TOOL_RESULTS_DIR))).toEqual(['a_b_tool-escaped.txt']);
    expect((await readdir(root)).sort()).toEqual(['ws']);
    expect(await readdir(workspace)).toEqual([TOOL_RESULTS_DIR]);
  });

  it('a .tool_results that is a link out of the workspace is refused: nothing is written, the result is cut as usual', async () => {
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await symlink(outside, path.join(workspace, TOOL_RESULTS_DIR));
    expect(await spill().handle({ id: 'call_1', name: 'dump_logs', arguments: {} }, BIG)).toBeNull();
    expect(await readdir(outside)).toEqual([]);
  });

  it('an existing file (or a link planted under the name) is never opened: the next free name is used', async () => {
    const dir = path.join(workspace, TOOL_RESULTS_DIR);
    await mkdir(dir);
    const target = path.join(root, 'target.txt');
    await symlink(target, path.join(dir, 'dump_logs-call_1.txt'));
    const handled = await spill().handle({ id: 'call_1', name: 'dump_logs', arguments: {} }, BIG);
    expect(handled).toContain('saved whole to .tool_results/dump_logs-call_1-2.txt');
    expect(existsSync(target)).toBe(false);
  });
});
