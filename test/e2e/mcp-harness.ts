/**
 * Drives `massgen mcp` with the MCP client SDK, as a coding agent does: the built CLI over stdio or
 * `--http`, and tool calls that return their structured answer. Clients and servers started here are
 * closed by {@link closeMcpClients} (call it from afterEach).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI_BIN, cleanEnv, startCli, type RunningCli } from './cli-harness.js';

/** What closes after the test: clients, servers, registries. */
export const cleanups: (() => Promise<unknown>)[] = [];

/** Closes everything in {@link cleanups}. */
export async function closeMcpClients(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((close) => close().catch(() => undefined)));
}

/** A tool's answer as a client sees it, error or not: its text, for checking what it reveals. */
export async function answerText(client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
  })) as ToolAnswer;
  return { isError: answer.isError === true, text: answer.content.map((c) => c.text ?? '').join('\n') };
}

export interface ToolAnswer {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** Calls a tool; returns its structured answer (throws with the text of a tool error). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (progress: { progress: number; message?: string }) => void,
): Promise<Record<string, unknown>> {
  const answer = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onprogress ? { onprogress, resetTimeoutOnProgress: true } : {}),
  })) as ToolAnswer;
  if (answer.isError) throw new Error(answer.content.map((c) => c.text).join('\n'));
  return answer.structuredContent ?? {};
}

export async function stdioClient(cwd: string, args: string[] = ['--config', 'team.yaml']) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', ...args],
    cwd,
    env: cleanEnv(cwd),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, stderr: () => stderr };
}

export async function httpClient(url: string, token: string | null) {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
    }),
  );
  return client;
}

/** {@link httpClient}, closed after the test. */
export async function closingHttpClient(url: string, token: string | null) {
  const client = await httpClient(url, token);
  cleanups.push(() => client.close());
  return client;
}

/** `massgen mcp --http 0` as a child process; resolves with its address and token once it listens. */
export async function httpCli(
  cwd: string,
  args: readonly string[] = [],
): Promise<{ cli: RunningCli; url: string; token: string }> {
  const cli = startCli(['mcp', '--config', 'team.yaml', '--http', '0', ...args], { cwd, timeoutMs: 120_000 });
  cleanups.push(async () => {
    cli.child.kill('SIGTERM');
    await cli.result;
  });
  await cli.output(/Token: \S+/, 'the MCP server address and token');
  const url = /massgen mcp: (\S+)/.exec(cli.stdout)?.[1];
  const token = /Token: (\S+)/.exec(cli.stdout)?.[1];
  if (!url || !token) throw new Error(`massgen mcp --http did not start: ${cli.stderr}`);
  return { cli, url, token };
}
