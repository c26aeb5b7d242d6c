/**
 * `massgen demo serve` with the BUILT CLI and no key: the official `openai` client calls the scripted
 * team through the printed base URL and key (plain and streamed), the printed curl line works as
 * printed, and the server is `massgen serve` unweakened — 127.0.0.1 only, a free port, the key
 * required — that never prints a key of the user's.
 */
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { makeWorkdir, removeTempDirs, startCli, waitFor, type RunningCli } from './cli-harness.js';

afterAll(removeTempDirs);

const hasCurl = spawnSync('curl', ['--version']).status === 0;
const NOTE = "(Scripted demo: massgen's built-in demo team wrote this answer; no model was called.)";

/** Starts `massgen demo serve` in a fresh folder and waits for its base URL, key and examples. */
async function demoServe(env: Record<string, string> = {}) {
  const cwd = makeWorkdir();
  const cli = startCli(['demo', 'serve'], { cwd, env: { TMPDIR: cwd, ...env }, timeoutMs: 120_000 });
  try {
    await waitFor(
      () => cli.stdout.includes('Press Ctrl-C to stop.'),
      30_000,
      'the demo server to print its address',
      () => `stdout: ${cli.stdout}\nstderr: ${cli.stderr}`,
    );
    const baseURL = /massgen serve: (http:\/\/\S+\/v1) /.exec(cli.stdout)?.[1] as string;
    // The key the curl line carries: the same one the "API key:" line shows.
    const apiKey = /Authorization: Bearer (\S+)'/.exec(cli.stdout)?.[1] as string;
    expect(baseURL, cli.stdout).toBeDefined();
    return { cli, cwd, baseURL, apiKey };
  } catch (error) {
    // A server that never said where it is must not outlive the test.
    cli.child.kill('SIGKILL');
    throw error;
  }
}

async function stop(cli: RunningCli) {
  cli.child.kill('SIGINT');
  const result = await cli.result;
  expect(result.code, result.stderr).toBe(0);
}

/** Whether anything accepts a TCP connection at `host:port`. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('massgen demo serve', () => {
  it('answers the official openai client, plain and streamed, on a free loopback port', async () => {
    const { cli, baseURL, apiKey } = await demoServe();
    try {
      expect(cli.stdout).toContain('model "massgen" is a scripted team');
      expect(cli.stdout).toContain(`API key: ${apiKey} (generated`);
      const client = new OpenAI({ baseURL, apiKey });
      const reply = await client.chat.completions.create({
        model: 'massgen',
        messages: [{ role: 'user', content: 'What is 6 times 7?' }],
      });
      expect(reply.choices[0]?.message.content).toBe(
        `The answer is 42: 6 × 7 = 42. Check: 42 ÷ 7 = 6.\n\n${NOTE}`,
      );

      const stream = await client.chat.completions.create({
        model: 'massgen',
        messages: [{ role: 'user', content: 'What is the capital of Australia?' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toContain('The capital of Australia is Canberra, not Sydney');
      expect(text).toContain(NOTE);
      // Each run is logged in the demo's own folder, named on stderr.
      await waitFor(() => (cli.stderr.match(/winner grace/g) ?? []).length === 2, 10_000, 'two access lines');
    } finally {
      await stop(cli);
    }
  }, 120_000);

  it.skipIf(!hasCurl)(
    `the curl line it prints works as printed${hasCurl ? '' : ' (skipped: curl is not on PATH)'}`,
    async () => {
      const { cli } = await demoServe();
      try {
        const line = cli.stdout.split('\n').find((l) => l.trim().startsWith('curl -s '));
        expect(line, cli.stdout).toBeDefined();
        const run = spawnSync('bash', ['-c', line as string], { encoding: 'utf8', timeout: 60_000 });
        expect(run.status, run.stderr).toBe(0);
        const body = JSON.parse(run.stdout) as { choices: { message: { content: string } }[] };
        expect(body.choices[0]?.message.content).toContain('The answer is 42');
      } finally {
        await stop(cli);
      }
    },
    120_000,
  );

  it('keeps every guard of massgen serve: the key is required, only 127.0.0.1 listens', async () => {
    const { cli, baseURL } = await demoServe();
    try {
      const { hostname, port: portText } = new URL(baseURL);
      const port = Number(portText);
      expect(hostname).toBe('127.0.0.1');
      expect(port).toBeGreaterThan(0);
      const client = new OpenAI({ baseURL, apiKey: 'wrong-key', maxRetries: 0 });
      await expect(
        client.chat.completions.create({ model: 'massgen', messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({ status: 401 });
      const keyless = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(keyless.status).toBe(401);
      expect((await fetch(`${baseURL}/models`)).status).toBe(401);
      // Bound to 127.0.0.1 itself, not to every address: another loopback address finds nothing.
      expect(await accepts('127.0.0.1', port)).toBe(true);
      expect(await accepts('127.0.0.2', port)).toBe(false);
    } finally {
      await stop(cli);
    }
  }, 120_000);

  it("makes a key of its own and never prints the user's MASSGEN_SERVER_API_KEY", async () => {
    const secret = 'user-server-key-5cb1e0b2d7';
    const { cli, apiKey } = await demoServe({ MASSGEN_SERVER_API_KEY: secret });
    try {
      expect(cli.stdout).not.toContain(secret);
      expect(cli.stderr).not.toContain(secret);
      expect(apiKey).toMatch(/^[\w-]{20,}$/);
      expect(cli.stdout).toContain(`API key: ${apiKey} (generated`);
    } finally {
      await stop(cli);
    }
  }, 120_000);
});
