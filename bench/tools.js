// `npm run bench:tools`: what tools add to a run on this machine — a call through the agent tool
// registry (argument check, timeout race, truncation), the path check, a workspace snapshot of many
// small files, and one `execute_command` (in the OS sandbox where there is one). Results go to bench/results/tools.json;
// targets are recorded beside the measurements and checked here, never in unit tests.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgentToolRegistry, defineTool } from '../dist/tools/index.js';
import { createPathChecker } from '../dist/tools/permissions/index.js';
import {
  createCommandToolProvider,
  homeLayout,
  sandboxSupport,
} from '../dist/tools/execute-command/index.js';
import { copySnapshot } from '../dist/workspace/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'massgen-bench-tools-'));

async function timed(label, iterations, fn) {
  for (let i = 0; i < Math.min(20, iterations); i++) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn(i);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const result = { label, iterations, msEach: +(ms / iterations).toFixed(3) };
  console.log(result);
  return result;
}

const echo = defineTool({
  name: 'echo',
  description: 'Echo.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text,
});
// The sandbox's cost: one bubblewrap start per command (local where there is no sandbox).
const support = sandboxSupport();
const commandMode = support.ok ? 'sandbox' : 'local';
const commandsFor = (workspace) =>
  createCommandToolProvider({
    workspace,
    env: { PATH: process.env.PATH },
    mode: commandMode,
    ...(support.ok
      ? {
          sandbox: {
            bwrap: support.bwrap,
            layout: () => ({ workspace, ...homeLayout(), writable: [], network: false }),
          },
        }
      : {}),
  });
const registry = createAgentToolRegistry({
  providers: [
    {
      name: 'bench',
      start: async () => undefined,
      tools: () => [echo],
      call: async (_name, args, context) => ({ content: String(await echo.execute(args, context)) }),
      close: async () => undefined,
    },
  ],
  timeoutMs: 60_000,
  maxResultChars: 20_000,
});
const context = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };

const workspace = path.join(scratch, 'ws');
mkdirSync(path.join(workspace, 'src'), { recursive: true });
for (let i = 0; i < 1000; i++)
  writeFileSync(path.join(workspace, 'src', `f${i}.txt`), `file ${i}\n`.repeat(20));
const checkPath = createPathChecker({ workspace, peerSnapshots: null, contextPaths: [], readOnly: [] });
const commands = commandsFor(workspace);

const results = [
  await timed('registry call (schema check + timeout race)', 2000, (i) =>
    registry.execute({ id: `c${i}`, name: 'echo', arguments: { text: 'hi' } }, context),
  ),
  await timed('path check', 2000, (i) => checkPath(`src/f${i % 1000}.txt`, 'write', 'coordination')),
  await timed(`execute_command "true" (${commandMode})`, 20, () =>
    commands.call('execute_command', { command: 'true' }, context),
  ),
  await timed('snapshot of 1000 files', 5, (i) => copySnapshot(workspace, path.join(scratch, `snap${i}`))),
];
await commands.close();
rmSync(scratch, { recursive: true, force: true });

// Targets: tool plumbing is noise next to a model call; starting a sandboxed command costs well under
// a model step; a 1000-file snapshot stays under a second.
const target = { maxRegistryCallMs: 1, maxPathCheckMs: 1, maxCommandMs: 100, maxSnapshotMs: 1000 };
const [call, check, command, snapshot] = results;
const report = {
  date: new Date().toISOString(),
  node: process.versions.node,
  target,
  targetMet:
    call.msEach <= target.maxRegistryCallMs &&
    check.msEach <= target.maxPathCheckMs &&
    command.msEach <= target.maxCommandMs &&
    snapshot.msEach <= target.maxSnapshotMs,
  results,
};
mkdirSync(path.join(root, 'results'), { recursive: true });
const out = path.join(root, 'results', 'tools.json');
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwritten ${out} — target ${report.targetMet ? 'met' : 'MISSED'}`);
