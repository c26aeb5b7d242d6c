import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolProvider, ToolProviderEvent, ToolProviderStartContext } from '../tool-provider.js';
import type { ToolContext } from '../../types/tool.js';
import { connectionOf } from './mcp-tool-provider.js';
import type { McpServerSettings } from './settings.js';

const require = createRequire(import.meta.url);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Absolute paths of the servers the tests spawn (from node_modules, never downloaded). */
export const serverPaths = {
  fixture: path.join(repoRoot, 'test/fixtures/mcp/fixture-server.mjs'),
  everything: path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  ),
  filesystem: path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
    'dist/index.js',
  ),
};

/** stdio settings that run `script` with the current node. */
export function nodeServer(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): McpServerSettings {
  return { type: 'stdio', command: process.execPath, args: [script, ...args], env };
}

/** A start context that records every report. */
export function recorder(signal: AbortSignal = new AbortController().signal): {
  context: ToolProviderStartContext;
  events: ToolProviderEvent[];
  failed: () => Extract<ToolProviderEvent, { type: 'mcp.server.failed' }>[];
  ready: () => Extract<ToolProviderEvent, { type: 'mcp.server.ready' }>[];
} {
  const events: ToolProviderEvent[] = [];
  return {
    context: { signal, report: (event) => events.push(event) },
    events,
    failed: () => events.filter((e) => e.type === 'mcp.server.failed'),
    ready: () => events.filter((e) => e.type === 'mcp.server.ready'),
  };
}

/** A tool context for calls. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { agentId: 'agent-1', phase: 'coordination', signal };
}

/** The pid of the provider's current stdio child, if it is up. */
export function childPid(provider: ToolProvider): number | undefined {
  return connectionOf.get(provider)?.()?.pid;
}

/** True while a process with `pid` exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Pids of live processes whose command line contains `marker`. */
export function pidsWithArg(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !/^\s*\d+\s+Z/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** The HTTP fixture on a loopback port (a free one unless `port` is given). */
export async function startHttpFixture(
  args: string[] = [],
  port = 0,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [serverPaths.fixture, '--http', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      seen += chunk;
      const match = /LISTENING (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`HTTP fixture exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${listening}/mcp`, child };
}

/** Kills a process the test spawned and waits until it is gone. */
export async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
