import os from 'node:os';
import { Command, CommanderError, Option } from 'commander';
import { loadUserEnv } from '../app/essentials.js';
import { openMemoryAdmin, type MemoryRecord } from '../memory/admin.js';
import { ConfigError, describeError, ExitCode } from '../types/errors.js';
import { inertJson, inertWriter } from '../util/terminal-text.js';
import type { CliIo } from './cli-io.js';
import { projectEnvAllowed } from './project-trust-gate.js';

interface MemoryArgs {
  action: 'list' | 'search' | 'forget' | 'export';
  args: string[];
  config?: string;
  store?: string;
  user: boolean;
  json: boolean;
  limit?: number;
  format: 'jsonl' | 'markdown';
}

/** Parses `massgen memory list|search|forget|export …`. */
export function parseMemoryArgs(argv: readonly string[], out: (text: string) => void): MemoryArgs {
  let parsed: Pick<MemoryArgs, 'action' | 'args'> | null = null;
  const program = new Command('massgen memory')
    .description('See and manage what massgen teams remember across runs (docs/memory.md).')
    .argument('<action>', 'list | search QUERY | forget ID... | export')
    .argument('[args...]')
    .option('--config <file>', 'use the store (and embedding model) this config names')
    .option('--store <dir>', 'the store folder (default: .massgen/memory)')
    .option('--user', 'the user-scope store (~/.massgen/memory)', false)
    .option('--json', 'list/search as JSON', false)
    .option('--limit <n>', 'at most N memories', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new ConfigError('--limit must be a positive integer');
      return n;
    })
    .addOption(
      new Option('--format <format>', 'export format').choices(['jsonl', 'markdown']).default('jsonl'),
    )
    .action((action: string, args: string[]) => {
      if (!['list', 'search', 'forget', 'export'].includes(action)) {
        throw new ConfigError(`unknown action "${action}": use list, search, forget or export`);
      }
      if (action === 'search' && args.length === 0)
        throw new ConfigError('massgen memory search needs a QUERY');
      if (action === 'forget' && args.length === 0)
        throw new ConfigError('massgen memory forget needs memory ids');
      parsed = { action: action as MemoryArgs['action'], args };
    })
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: out });
  program.parse([...argv], { from: 'user' });
  const opts = program.opts<Omit<MemoryArgs, 'action' | 'args'>>();
  return { ...parsed!, ...opts };
}

/** Where a memory came from, in words: `run run_x, agent alpha, via save_memory`. */
const origin = (m: MemoryRecord) =>
  `run ${m.runId}, ${m.agentId === null ? 'no agent recorded' : `agent ${m.agentId}`}, via ${m.source}`;

const line = (m: MemoryRecord) =>
  `${m.id}  ${m.createdAt.slice(0, 19).replace('T', ' ')}  ${m.kind.padEnd(12)} ${m.text.replace(/\s+/g, ' ')}  (${origin(m)})\n`;

/** One memory of a Markdown export: its text quoted, so no line of it reads as the export's own. */
const markdown = (m: MemoryRecord) =>
  `## ${m.kind} ${m.id}\n\n_${m.createdAt}, ${origin(m)}, ${m.scope}_\n\n${m.text
    .split(/\r?\n/)
    .map((l) => `> ${l}`)
    .join('\n')}\n\n`;

/** `massgen memory …`: returns the exit code. */
export async function runMemoryCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Memories quote models and users, and errors quote files: everything is shown inert, never run by
  // the terminal — JSON as JSON, with what a terminal would act on spelled `\uXXXX` (same data).
  const stdout = inertWriter(io.stdout);
  const stderr = inertWriter(io.stderr);
  let args: MemoryArgs;
  try {
    args = parseMemoryArgs(argv, io.stdout);
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      stderr(`massgen memory: ${error.message.replace(/^error: /, '')}\n`);
      return ExitCode.config;
    }
    stderr(`massgen memory: ${describeError(error)}\n`);
    return ExitCode.config;
  }
  const home = io.home ?? os.homedir();
  let opened;
  try {
    opened = await openMemoryAdmin({
      cwd: io.cwd,
      env: loadUserEnv({
        cwd: io.cwd,
        env: io.env,
        home,
        projectEnv: projectEnvAllowed(io),
      }),
      home,
      user: args.user,
      ...(args.config === undefined ? {} : { config: args.config }),
      ...(args.store === undefined ? {} : { store: args.store }),
    });
  } catch (error) {
    stderr(`massgen memory: ${describeError(error)}\n`);
    return ExitCode.config;
  }
  const { store, dir } = opened;
  const writeJson = (value: unknown, space?: number) => io.stdout(`${inertJson(value, space)}\n`);
  try {
    if (args.action === 'list') {
      const all = await store.list(args.limit);
      if (args.json) writeJson(all, 2);
      else if (all.length === 0) stdout(`no memories in ${dir}\n`);
      else for (const m of all) stdout(line(m));
    } else if (args.action === 'search') {
      const hits = await store.search(args.args.join(' '), args.limit ?? 10);
      if (args.json) writeJson({ mode: store.mode, hits }, 2);
      else {
        if (store.fallbackReason) stderr(`massgen memory: ${store.fallbackReason}\n`);
        if (hits.length === 0) stdout('no memories match\n');
        for (const m of hits) stdout(line(m));
      }
    } else if (args.action === 'forget') {
      const removed = await store.forget(args.args);
      for (const id of removed) stdout(`forgot ${id}\n`);
      const missed = args.args.filter((id) => !removed.some((r) => r.startsWith(id.toLowerCase())));
      for (const id of missed) stderr(`massgen memory: no single memory with id ${id}\n`);
      if (missed.length > 0) return ExitCode.config;
    } else {
      const all = (await store.list(args.limit)).reverse();
      if (args.format === 'jsonl') for (const m of all) writeJson(m);
      else for (const m of all) stdout(markdown(m));
    }
    return 0;
  } catch (error) {
    stderr(`massgen memory: ${describeError(error)}\n`);
    return ExitCode.runFailed;
  } finally {
    await store.close();
  }
}
