/**
 * Hooks (docs/hooks.md) through the built CLI, headless, against the scripted fake model: a PreToolUse
 * hook denies `rm` and the model reads its reason, one rewrites a write, a PostToolUse hook adds
 * context, and the ledger names each hook; the tool input reaches a hook only as JSON on stdin; a hook
 * that hangs is cut at its timeout; a huge or malformed answer is ignored with a warning; an untrusted
 * folder's `.massgen/hooks/` does not run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeChatRequestBody } from '../../src/testing/fake-openai-server.js';
import type { LedgerEntry } from '../../src/logging/permission-ledger.js';
import { sandboxSupport } from '../../src/tools/execute-command/index.js';
import {
  agentEntry,
  automated,
  logDirs,
  makeWorkdir,
  persona,
  removeTempDirs,
  scriptedCalls,
  startCli,
  useFakeServer,
  writeConfig,
} from './cli-harness.js';

const fake = useFakeServer();
afterEach(removeTempDirs);

const sandbox = sandboxSupport(process.env.PATH);
// CI runs as root; the sandboxed hook must hold for an ordinary user too (`nobody` through setpriv).
const asRoot = process.getuid?.() === 0;
const nobodyCanRun =
  asRoot &&
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'true']).status === 0;
const noSandbox = sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`;

const toolResults = (body: FakeChatRequestBody) =>
  (body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
const lastRequest = () => fake.server.requests.at(-1)?.body as FakeChatRequestBody;

const ledgerOf = (logDir: string): LedgerEntry[] =>
  fs
    .readFileSync(path.join(logDir, 'permissions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEntry);

/** A node script the hook runs: reads the event from stdin, `body` decides what to print. */
function hookScript(dir: string, name: string, body: string): string {
  fs.writeFileSync(
    path.join(dir, name),
    `let s = '';\nprocess.stdin.on('data', (c) => (s += c)).on('end', () => {\n  const e = JSON.parse(s);\n  ${body}\n});\n`,
  );
  return `${process.execPath} ${name}`;
}

const agent = (url: string, backend: Record<string, unknown> = {}) =>
  agentEntry('a', url, { system_message: persona('a'), backend: { cwd: 'ws_a', ...backend } });

describe('hooks through the CLI', () => {
  it.skipIf(!sandbox.ok)(
    `a PreToolUse hook denies rm, another rewrites a write, PostToolUse adds context, and the ledger names them${noSandbox}`,
    async () => {
      const cwd = makeWorkdir();
      const injected = `echo "$(touch pwned-by-input)"; touch pwned-too #'"`;
      fake.server.setHandler(
        scriptedCalls([
          { name: 'execute_command', arguments: { command: 'rm -rf data; echo gone > gone.txt' } },
          { name: 'write_file', arguments: { path: 'orig.txt', content: 'hello' } },
          { name: 'execute_command', arguments: { command: injected } },
        ]),
      );
      const deny = hookScript(
        cwd,
        'deny-rm.mjs',
        `if (/(^|[;&|\\s])rm\\s/.test(e.tool_input.command)) console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm in this project' } }));`,
      );
      const rewrite = hookScript(
        cwd,
        'rewrite.mjs',
        `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...e.tool_input, path: 'rewritten.txt' } } }));`,
      );
      const post = hookScript(
        cwd,
        'post.mjs',
        `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'post hook saw ' + e.tool_name } }));`,
      );
      writeConfig(cwd, {
        agents: [agent(fake.server.url, { enable_code_execution: true })],
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: deny }] },
            // Unconfined, so it can keep what it read in the run's folder.
            {
              matcher: 'execute_command',
              hooks: [{ type: 'command', command: 'cat >> seen.jsonl; echo >> seen.jsonl', sandbox: false }],
            },
            { matcher: 'Write|Edit', hooks: [{ type: 'command', command: rewrite }] },
          ],
          PostToolUse: [{ matcher: 'write_file', hooks: [{ type: 'command', command: post }] }],
        },
      });
      const result = await automated(cwd, 'Tidy up.');
      expect(result.stderr).not.toMatch(/warning.*hook/);
      expect(result.code).toBe(0);

      const results = toolResults(lastRequest());
      expect(results[0]).toBe(
        "The call to execute_command was blocked by the user's hook hooks.PreToolUse[0].hooks[0]: no rm in this project. Do not retry it unchanged; continue without it or try another approach.",
      );
      expect(results[1]).toContain("[Added by the user's hook, not by the tool]\npost hook saw write_file");
      const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws_a');
      expect(fs.existsSync(path.join(workspace, 'gone.txt'))).toBe(false);
      expect(fs.readFileSync(path.join(workspace, 'rewritten.txt'), 'utf8')).toBe('hello');
      expect(fs.existsSync(path.join(workspace, 'orig.txt'))).toBe(false);

      // The hook got the call as Claude Code sends it, on stdin; nothing of it ran in the hook's shell.
      const seen = fs
        .readFileSync(path.join(cwd, 'seen.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(seen).toHaveLength(2);
      expect(seen[1]).toMatchObject({
        hook_event_name: 'PreToolUse',
        tool_name: 'execute_command',
        tool_input: { command: injected },
        cwd,
        agent_id: 'a',
      });
      expect(typeof seen[1]!.session_id).toBe('string');
      expect(typeof seen[1]!.tool_use_id).toBe('string');
      expect(fs.existsSync(path.join(cwd, 'pwned-by-input'))).toBe(false);
      expect(fs.existsSync(path.join(cwd, 'pwned-too'))).toBe(false);

      const [logDir] = logDirs(cwd);
      const ledger = ledgerOf(logDir!);
      expect(ledger.map((e) => [e.tool, e.decision, e.by, e.hook])).toEqual([
        ['execute_command', 'deny', 'hook', 'hooks.PreToolUse[0].hooks[0]'],
        ['write_file', 'allow', 'default', 'hooks.PreToolUse[2].hooks[0]'],
      ]);
      expect(ledger[0]!.reason).toBe('no rm in this project');
      expect(ledger[1]!.arguments).toEqual({ path: 'rewritten.txt', content: 'hello' });
    },
  );

  it.skipIf(!sandbox.ok)(
    `a hook that hangs is stopped at its timeout with its processes, and the run ends normally${noSandbox}`,
    async () => {
      const cwd = makeWorkdir();
      fake.server.setHandler(
        scriptedCalls([{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }]),
      );
      writeConfig(cwd, {
        agents: [agent(fake.server.url)],
        hooks: {
          PreToolUse: [
            {
              hooks: [
                {
                  type: 'command',
                  command: 'sleep 6917 & sleep 6917; echo late',
                  timeout: 1,
                  sandbox: false,
                },
              ],
            },
          ],
        },
      });
      const result = await automated(cwd, 'Write.');
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(
        'hooks.PreToolUse[0].hooks[0] was stopped after its timeout of 1 s (set "timeout:" to give it longer); the call went on without it',
      );
      expect(fs.readFileSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'a.txt'), 'utf8')).toBe('x');
      // Its process group went with it, background job included.
      const left = (() => {
        try {
          return execFileSync('pgrep', ['-f', 'sleep 6917'], { encoding: 'utf8' });
        } catch {
          return '';
        }
      })();
      expect(left).toBe('');
    },
  );

  it.skipIf(!sandbox.ok)(
    `a huge or malformed answer is ignored with a warning, and the call goes on${noSandbox}`,
    async () => {
      const cwd = makeWorkdir();
      fake.server.setHandler(
        scriptedCalls([{ name: 'write_file', arguments: { path: 'b.txt', content: 'y' } }]),
      );
      const huge = hookScript(
        cwd,
        'huge.mjs',
        `process.stdout.write(JSON.stringify({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'x'.repeat(1000000) } }));`,
      );
      writeConfig(cwd, {
        agents: [agent(fake.server.url)],
        hooks: {
          PreToolUse: [
            { hooks: [{ type: 'command', command: huge }] },
            { hooks: [{ type: 'command', command: `printf '{"decision": "block", "reason": '` }] },
          ],
        },
      });
      const result = await automated(cwd, 'Write.');
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(
        /hooks\.PreToolUse\[0\]\.hooks\[0\] printed 100\d{4} bytes; an answer may be at most 65536: ignored/,
      );
      expect(result.stderr).toMatch(
        /hooks\.PreToolUse\[1\]\.hooks\[0\] printed malformed JSON \(.+\): ignored/,
      );
      expect(result.stderr.length).toBeLessThan(20_000);
      expect(fs.readFileSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'b.txt'), 'utf8')).toBe('y');
      expect(toolResults(lastRequest())[0]).not.toContain('xxxxxxxxxx');
    },
  );

  it("an untrusted folder's .massgen/hooks do not run; trusted for the run, they do", async () => {
    const cwd = makeWorkdir();
    fs.mkdirSync(path.join(cwd, '.massgen', 'hooks'), { recursive: true });
    fs.writeFileSync(
      path.join(cwd, '.massgen', 'hooks', 'guard.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: '*',
              hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/HOOK-RAN"', sandbox: false }],
            },
          ],
        },
      }),
    );
    writeConfig(cwd, { agents: [agent(fake.server.url)] });
    fake.server.setHandler(
      scriptedCalls([{ name: 'write_file', arguments: { path: 'c.txt', content: 'z' } }]),
    );
    const untrusted = await automated(cwd, 'Write.');
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain(
      'not running the hooks of .massgen/hooks/ (guard.json): this folder is not trusted',
    );
    expect(fs.existsSync(path.join(cwd, 'HOOK-RAN'))).toBe(false);

    const trusted = await automated(cwd, '--trust-project', 'Write.');
    expect(trusted.code).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'HOOK-RAN'))).toBe(true);
  });

  it('UserPromptSubmit refuses a question before any request (exit 1), or adds context to it', async () => {
    const cwd = makeWorkdir();
    fake.server.setHandler(scriptedCalls([]));
    const gate = hookScript(
      cwd,
      'ticket.mjs',
      `const t = /TICKET-\\d+/.exec(e.prompt); if (!t) { process.stderr.write('name a ticket'); process.exit(2); } console.log('ticket ' + t[0] + ' is about the login page');`,
    );
    writeConfig(cwd, {
      agents: [agent(fake.server.url)],
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: gate, sandbox: false }] }] },
    });
    const refused = await automated(cwd, 'Fix it.');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'massgen: error: the question was refused by the hook hooks.UserPromptSubmit[0].hooks[0]: name a ticket',
    );
    expect(fake.server.requests).toHaveLength(0);

    const allowed = await automated(cwd, 'Fix TICKET-7.');
    expect(allowed.code).toBe(0);
    const first = fake.server.requests[0]!.body as FakeChatRequestBody;
    const user = (first.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));
    expect(user.join('\n')).toContain(
      "Fix TICKET-7.\n\n[Added by the user's UserPromptSubmit hook]\nticket TICKET-7 is about the login page",
    );
  });

  it.skipIf(!sandbox.ok || !nobodyCanRun)(
    `as an unprivileged user, a sandboxed PreToolUse hook denies the call${sandbox.ok && nobodyCanRun ? '' : ' (skipped: needs root with setpriv, and the OS sandbox)'}`,
    async () => {
      const cwd = makeWorkdir();
      fake.server.setHandler(
        scriptedCalls([{ name: 'write_file', arguments: { path: 'x.txt', content: 'x' } }]),
      );
      const deny = hookScript(
        cwd,
        'deny.mjs',
        `process.stderr.write('writes are reviewed: ' + e.tool_input.path + ' as uid ' + process.getuid()); process.exit(2);`,
      );
      writeConfig(cwd, {
        agents: [agent(fake.server.url)],
        hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: deny }] }] },
      });
      execFileSync('chown', ['-R', '65534:65534', cwd]);
      const result = await startCli(['--config', 'config.yaml', '--automation', 'Write.'], {
        cwd,
        timeoutMs: 90_000,
        user: { uid: 65534, gid: 65534 },
      }).result;
      expect(result.code).toBe(0);
      expect(toolResults(lastRequest())[0]).toContain(
        "blocked by the user's hook hooks.PreToolUse[0].hooks[0]: writes are reviewed: x.txt as uid 65534",
      );
      expect(fs.existsSync(path.join(cwd, '.massgen', 'workspaces', 'ws_a', 'x.txt'))).toBe(false);
    },
  );
});
