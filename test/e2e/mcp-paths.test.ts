/**
 * `massgen mcp` reads files only from the folder it serves (and each `--allow-path DIR`): a client
 * that names a config, an attachment or a context path elsewhere — directly, by `..`, or through a
 * symbolic link inside the folder — is refused with one clear line, and the file's content never
 * reaches a response or a model. Through the MCP client SDK against the built CLI, over stdio and
 * --http.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentEntry,
  makeWorkdir,
  removeTempDirs,
  runCli,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';
import { answerText, call, closeMcpClients, closingHttpClient, httpCli, stdioClient } from './mcp-harness.js';

const fake = useFakeServer();
afterEach(async () => {
  await closeMcpClients();
  removeTempDirs();
});

const MARK = 'Qx7secretMARK';

/** The served folder (with a team config) and a folder beside it holding secrets. */
function folders() {
  const cwd = makeWorkdir();
  writeConfig(cwd, { agents: [agentEntry('alpha', fake.server.url)] }, 'team.yaml');
  const outside = makeWorkdir();
  fs.writeFileSync(path.join(outside, 'secret.txt'), `the password is ${MARK}\n`);
  fs.writeFileSync(path.join(outside, '.env'), `OPENAI_API_KEY=sk-${MARK}\n`);
  fs.writeFileSync(path.join(outside, 'shadow'), `root:$6$${MARK}$hash:19000:0:99999:7:::\n`);
  writeConfig(outside, { agents: [agentEntry('beta', fake.server.url)] }, 'team.yaml');
  // Links inside the served folder that lead out of it.
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'notes.txt'));
  fs.symlinkSync(path.join(outside, 'shadow'), path.join(cwd, 'team-link.yaml'));
  fs.symlinkSync(outside, path.join(cwd, 'shared'));
  // A .env inside the folder is the user's: validating it must still not show its values.
  fs.writeFileSync(path.join(cwd, '.env'), `OPENAI_API_KEY: sk-${MARK}\n`);
  return { cwd, outside };
}

/** Every way a client can name a file outside; each must be refused. */
function attempts(outside: string): [string, Record<string, unknown>][] {
  const relative = path.join('..', path.basename(outside));
  return [
    ['validate_config', { config: path.join(outside, 'shadow') }],
    ['validate_config', { config: path.join(outside, '.env') }],
    ['validate_config', { config: `${relative}/secret.txt` }],
    ['validate_config', { config: '/etc/passwd' }],
    ['validate_config', { config: 'team-link.yaml' }],
    ['validate_config', { config: 'shared/.env' }],
    ['run', { question: 'q', config: path.join(outside, 'team.yaml') }],
    ['run', { question: 'q', attachments: [path.join(outside, 'secret.txt')] }],
    ['run', { question: 'q', attachments: [`${relative}/secret.txt`] }],
    ['run', { question: 'q', attachments: ['notes.txt'] }],
    ['run', { question: 'q', attachments: ['shared/secret.txt'] }],
    ['run', { question: 'q', attachments: ['shared/missing.txt'] }],
    ['run', { question: 'q', context_paths: [{ path: outside }] }],
    ['run', { question: 'q', context_paths: [{ path: 'shared', permission: 'write' }] }],
  ];
}

async function expectRefused(client: Client, outside: string): Promise<void> {
  for (const [tool, args] of attempts(outside)) {
    const { isError, text } = await answerText(client, tool, args);
    const what = `${tool} ${JSON.stringify(args)}`;
    expect(isError, `${what}: ${text}`).toBe(true);
    expect(text, what).toMatch(
      /^massgen: (config|attachment|context path) "[^"]+" is refused: it (is outside the folder massgen mcp serves|leads outside the folder massgen mcp serves \(through a symbolic link\))\nhint: name a file inside .*, or start massgen mcp with --allow-path DIR/,
    );
    expect(text, what).not.toContain(MARK);
  }
  expect(fake.server.requests).toEqual([]);
}

describe('massgen mcp keeps clients to its folder', () => {
  it('over stdio: every path out of the folder is refused and nothing of the files comes back', async () => {
    const { cwd, outside } = folders();
    const { client } = await stdioClient(cwd);
    await expectRefused(client, outside);
    // Inside the folder: the .env is read as a config and reported without its value.
    const env = await answerText(client, 'validate_config', { config: '.env' });
    expect(env.text).toContain('unknown key \\"OPENAI_API_KEY\\" at the top level');
    expect(env.text).not.toContain(MARK);
  });

  it('over --http: the same refusals', async () => {
    const { cwd, outside } = folders();
    const { url, token } = await httpCli(cwd);
    const client = await closingHttpClient(url, token);
    await expectRefused(client, outside);
  });

  it('--allow-path lets clients use that folder', async () => {
    const { cwd, outside } = folders();
    fake.server.setHandler(() => ({ text: 'Read it.' }));
    const { client } = await stdioClient(cwd, ['--config', 'team.yaml', '--allow-path', outside]);
    expect(await call(client, 'validate_config', { config: path.join(outside, 'team.yaml') })).toMatchObject({
      valid: true,
    });
    const run = await call(client, 'run', { question: 'Summarise.', attachments: ['shared/secret.txt'] });
    const result = await call(client, 'result', { run_id: run.run_id, timeout_seconds: 60 });
    expect(result.status).toBe('completed');
    expect(fake.server.requests[0]?.view?.text).toContain(`the password is ${MARK}`);
    // Still nothing beyond the allowed folders.
    const { isError, text } = await answerText(client, 'validate_config', { config: '/etc/passwd' });
    expect(isError).toBe(true);
    expect(text).toMatch(/is refused: it is outside the folders massgen mcp serves/);
  });

  it('--allow-path with a folder that does not exist stops the server with one line', async () => {
    const { cwd } = folders();
    const result = await runCli(['mcp', '--allow-path', 'nope'], { cwd });
    expect(result.code).toBe(1);
    // (Before it, the line that says the untrusted folder's .env is left out.)
    expect(
      result.stderr.endsWith(
        'massgen mcp: error: --allow-path nope: not found\nhint: give a folder that exists\n',
      ),
    ).toBe(true);
    expect(result.stderr.split('\n').filter((l) => l.includes('error')).length).toBe(1);
  });
});
