/**
 * Shared pieces of the fault matrix: the built CLI against loopback fake models, with custom tools that
 * misbehave on purpose, and readers for what a run leaves on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { RunEvent } from '../../src/types/events.js';
import { REPO_ROOT, agentOf, listFiles, toolNames, votableIds } from '../e2e/cli-harness.js';

/** The MCP fixture server (`--stubborn` ignores end of input and SIGTERM). */
export const MCP_FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'mcp', 'fixture-server.mjs');

/** Pids of live processes whose command line contains `tag` (zombies excluded). */
export function processesTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(fs.readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (cmdline.includes(tag) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Every line of `events.jsonl`; throws when a complete line does not parse. */
export function readJournal(logDir: string): RunEvent[] {
  const text = fs.readFileSync(path.join(logDir, 'events.jsonl'), 'utf8');
  const lines = text.split('\n');
  // Only the text after the last newline may be incomplete (a write cut off by the kill).
  lines.pop();
  return lines.map((line) => JSON.parse(line) as RunEvent);
}

/** Every file under `dir` with its text, for "no secret anywhere" checks. */
export function allFileTexts(dir: string): { file: string; text: string }[] {
  if (!fs.existsSync(dir)) return [];
  return listFiles(dir).map((file) => ({ file, text: fs.readFileSync(path.join(dir, file), 'latin1') }));
}

/**
 * A custom-tool module (ES module) with tools that misbehave: `crash_tool` throws outside any promise chain, `reject_tool`
 * leaves a rejection unhandled, `env_tool` returns secrets from the environment.
 */
export const MISBEHAVING_TOOLS = `
export function crashTool() {
  setTimeout(() => { throw new Error('injected crash; token ' + process.env.MY_SERVICE_TOKEN); }, 0);
  return 'crash scheduled';
}
export function rejectTool() {
  Promise.reject(new Error('injected unhandled rejection'));
  return 'rejection scheduled';
}
export function envTool() {
  return 'provider key ' + process.env.FAKE_PROVIDER_KEY + ', service token ' + process.env.MY_SERVICE_TOKEN;
}
`;

export const toolEntry = (name: string, fn: string, properties: Record<string, unknown> = {}) => ({
  name,
  path: 'tools.mjs',
  function: fn,
  description: `${name} (misbehaves on purpose)`,
  parameters: { type: 'object', properties, required: Object.keys(properties) },
});

/**
 * A fake model for agents that first call `tool` (once per agent), then converge on agent1 like the
 * e2e converging handler does.
 */
export function toolThenConverge(tool: string, args: Record<string, unknown> = {}) {
  const called = new Set<string>();
  return (body: FakeChatRequestBody): FakeResponse => {
    const id = agentOf(body) ?? 'unknown';
    const names = toolNames(body);
    if (!names.includes('new_answer')) return { text: `Final from ${id}.` };
    if (names.includes(tool) && !called.has(id)) {
      called.add(id);
      return { text: `${id} uses ${tool}.`, toolCalls: [{ name: tool, arguments: args }] };
    }
    if (votableIds(body).includes('agent1'))
      return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
    return { toolCalls: [{ name: 'new_answer', arguments: { content: `Answer by ${id}.` } }] };
  };
}
