/**
 * Context that never overflows, through the built CLI: an agent reads a 100k-token file, gets head,
 * tail and a `.tool_results/` file it then pages through, and when its history passes
 * `memory.compression.trigger_threshold` its older steps are summarised by its model; the run ends
 * with the answer, and the compression is in the run's events.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../src/testing/fake-server/openai-chat.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import {
  agentEntry,
  makeWorkdir,
  onlyLogDir,
  readEvents,
  removeTempDirs,
  runCli,
  systemText,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
afterEach(removeTempDirs);

const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

/** Reads the big file, pages through the saved result, reads the big file again, then answers. */
function reader(bigFile: string) {
  return (body: FakeChatRequestBody): FakeResponse => {
    if (systemText(body).startsWith('You condense'))
      return { text: 'Summary: big.txt holds 4,000 numbered lines.' };
    const messages = body.messages ?? [];
    if (messages.some((m) => text(m.content).startsWith('Summary of your earlier steps')))
      return { text: 'Final: the file has 4,000 numbered lines.' };
    const results = messages.filter((m) => m.role === 'tool').map((m) => text(m.content));
    const saved = /saved whole to (\.tool_results\/\S+\.txt)/.exec(results[0] ?? '')?.[1];
    if (results.length === 0) return { toolCalls: [{ name: 'read_file', arguments: { path: bigFile } }] };
    if (results.length === 1 && saved)
      return {
        toolCalls: [{ name: 'read_file', arguments: { path: saved, offset_line: 1500, max_lines: 3 } }],
      };
    if (results.length === 2) return { toolCalls: [{ name: 'read_file', arguments: { path: bigFile } }] };
    return { text: 'Final: no compression happened.' };
  };
}

describe('compression through the CLI', () => {
  it('a 100k-token result goes to a file the model pages through; a history past the threshold is compressed; the run answers', async () => {
    const cwd = makeWorkdir();
    fs.mkdirSync(path.join(cwd, 'data'));
    const lines = Array.from(
      { length: 4_000 },
      (_, i) => `line ${String(i + 1).padStart(5, '0')} ${'x'.repeat(89)}`,
    );
    const bigFile = path.join(fs.realpathSync(cwd), 'data', 'big.txt');
    fs.writeFileSync(bigFile, `${lines.join('\n')}\n`);
    fake.server.setHandler(reader(bigFile));
    writeConfig(cwd, {
      agents: [agentEntry('solo', fake.server.url, { backend: { cwd: 'ws1', context_window: 16_000 } })],
      orchestrator: { context_paths: [{ path: 'data', permission: 'read' }] },
      memory: { compression: { trigger_threshold: 0.5, target_ratio: 0.25 } },
    });
    const result = await runCli(
      ['--config', 'config.yaml', '--no-display', 'How many lines has data/big.txt?'],
      {
        cwd,
        timeoutMs: 60_000,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Final: the file has 4,000 numbered lines.');

    const events = readEvents(onlyLogDir(cwd));
    const reads = events.flatMap((e) =>
      e.type === 'tool.call.finished' && e.toolName === 'read_file' ? [e.result] : [],
    );
    expect(reads).toHaveLength(3);
    expect(reads[0]).toMatch(
      /^\[This result is [\d,]+ characters .* saved whole to \.tool_results\/read_file-\S+\.txt/,
    );
    expect(reads[0]).toContain('line 00001 ');
    expect(reads[0]).not.toContain('line 01500 ');
    expect(reads[1]).toMatch(/^\[\.tool_results\/read_file-\S+\.txt: lines 1500-1502 of 2001/);
    expect(reads[1]).toContain('line 01500 ');
    const saved = fs.readdirSync(path.join(cwd, '.massgen/workspaces/ws1/.tool_results'));
    expect(saved).toHaveLength(2);

    const compressed = events.filter((e) => e.type === 'agent.context.compressed');
    expect(compressed).toEqual([
      expect.objectContaining({
        agentId: 'solo',
        reason: 'threshold',
        contextWindow: 16_000,
        model: 'model-solo',
      }),
    ]);
    // The summary was written by the agent's own model, from the older steps.
    const summaryCall = fake.server.requests.find((r) => systemText(r.body ?? {}).startsWith('You condense'));
    expect(JSON.stringify(summaryCall?.body)).toContain('line 01500');
  });
});
