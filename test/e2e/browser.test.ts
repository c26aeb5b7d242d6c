/**
 * `tools: { browser: … }` through the built CLI: scripted agents drive real Chromium against pages the
 * test serves on 127.0.0.1 — a form filled and its result answered with, allowed_origins refusing
 * another origin, cookies kept apart per agent, a download and a screenshot landing in the workspace —
 * and no browser process outlives the run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/tools/browser/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { startPages } from '../fixtures/browser/pages.js';
import {
  agentEntry,
  agentOf,
  CLI_BIN,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  runCli,
  startCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';

const chromium = findChromium(process.env.PATH);

/** Live Chromium processes whose command line names a path under `dir`. */
function browsersUnder(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`--massgen-workspace=${dir}`) && !line.trimStart().startsWith('Z'));
}

/** The environment and command line of each live Chromium process of the run in `dir`. */
function browserProcessesUnder(dir: string): { environ: string[]; args: string }[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(`--massgen-workspace=${dir}`))
    .map((line) => {
      const pid = line.trim().split(/\s+/)[0]!;
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
      return { environ, args: line };
    });
}

const asRoot = process.getuid?.() === 0;
const NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
const nobodyCanRun =
  asRoot && spawnSync(NOBODY[0]!, [...NOBODY.slice(1), 'test', '-r', CLI_BIN]).status === 0;
/** Browsers at work take long on a busy machine: the CLI's bound, inside vitest's testTimeout. */
const BROWSING_MS = 150_000;

/** Every file under `dir` named `name` (the workspace's place depends on the run's layout). */
function findFiles(dir: string, name: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((p) => path.basename(p) === name)
    .map((p) => path.join(dir, p));
}

describe.skipIf(chromium === null)(
  `the browser tools through the CLI${chromium === null ? ' (skipped: no chromium on PATH)' : ''}`,
  () => {
    const fake = useFakeServer();
    let pages: Awaited<ReturnType<typeof startPages>>;
    let other: Awaited<ReturnType<typeof startPages>>;
    beforeAll(async () => {
      [pages, other] = await Promise.all([startPages(), startPages()]);
    });
    afterAll(async () => {
      await Promise.all([pages?.close(), other?.close()]);
    });

    it('an agent fills a form and answers with the result; another origin is refused; cookies, screenshots and downloads stay per agent', async () => {
      const cwd = makeWorkdir();
      const plans: Record<string, { name: string; arguments: Record<string, unknown> }[]> = {
        a: [
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/` } },
          {
            name: 'browser_type',
            arguments: { target: 'role=textbox[name="Your name"]', text: 'Ada', submit: true },
          },
          { name: 'browser_screenshot', arguments: {} },
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/set?v=lemon` } },
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/cookie` } },
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/files` } },
          { name: 'browser_download', arguments: { target: 'text=Get the report' } },
        ],
        b: [
          { name: 'browser_navigate', arguments: { url: `${other.origin}/` } },
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/set?v=mint` } },
          { name: 'browser_navigate', arguments: { url: `${pages.origin}/cookie` } },
        ],
      };
      // Each agent makes its calls one per step, then answers with what it read, then votes (for a —
      // agent1 — once its answer is there).
      const done = new Map<string, number>();
      const answered = new Map<string, string>();
      fake.server.setHandler((body, _index, view) => {
        const id = agentOf(body) ?? 'unknown';
        if (!toolNames(body).includes('new_answer')) return { text: `Final from ${id}: ${answered.get(id)}` };
        if (answered.has(id)) {
          const votable = votableIds(body);
          const target = votable.includes('agent1') ? 'agent1' : votable[0]!;
          return {
            toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'it read the page' } }],
          };
        }
        const step = done.get(id) ?? 0;
        done.set(id, step + 1);
        const call = plans[id]?.[step];
        if (call) return { toolCalls: [call] };
        const greeting = /Hello, \w+! Code \d+\./.exec(view.text)?.[0] ?? 'no greeting';
        answered.set(id, greeting);
        return { toolCalls: [{ name: 'new_answer', arguments: { content: `${id}: ${greeting}` } }] };
      });
      writeConfig(cwd, {
        agents: ['a', 'b'].map((id) =>
          agentEntry(id, fake.server.url, {
            system_message: persona(id),
            backend: { cwd: `ws_${id}`, tool_timeout_seconds: 120 },
          }),
        ),
        tools: { browser: { allowed_origins: [pages.origin] } },
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Greet Ada'], {
        cwd,
        timeoutMs: BROWSING_MS,
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Final from a: Hello, Ada! Code 4217.');
      // The terminal shows each browser action as a tool call with its target.
      expect(result.stdout).toContain(`⚙ browser_navigate {"url":"${pages.origin}/"}`);
      expect(result.stdout).toContain(
        '⚙ browser_type {"target":"role=textbox[name=\\"Your name\\"]","text":"Ada"',
      );

      const events = readEvents(onlyLogDir(cwd)) as RunEvent[];
      const finished = events.filter(
        (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> => e.type === 'tool.call.finished',
      );
      const started = events.filter(
        (e): e is Extract<RunEvent, { type: 'tool.call.started' }> => e.type === 'tool.call.started',
      );
      // The log keeps each action with its target, so a replay shows what the agent did.
      expect(started.filter((e) => e.agentId === 'a').map((e) => e.arguments)).toContainEqual({
        url: `${pages.origin}/`,
      });
      const results = (agent: string, tool: string) =>
        finished.filter((e) => e.agentId === agent && e.toolName === tool);
      expect(results('b', 'browser_navigate')[0]).toMatchObject({
        isError: true,
        result: `browser_navigate failed: Navigation refused: ${other.origin} is not in allowed_origins (allowed: ${pages.origin}).`,
      });
      const cookies = (agent: string) =>
        results(agent, 'browser_navigate')
          .map((e) => /cookie: ([^\n"]*)/.exec(e.result)?.[1])
          .filter(Boolean);
      expect(cookies('a')).toEqual(['flavour=lemon']);
      expect(cookies('b')).toEqual(['flavour=mint']);

      const shot = results('a', 'browser_screenshot')[0]!;
      expect(shot.result).toMatch(/^screenshot: screenshots\/001\.png\n/);
      const pngs = findFiles(cwd, '001.png').filter((p) => p.includes('ws_a'));
      expect(pngs.length).toBeGreaterThan(0);
      expect(fs.readFileSync(pngs[0]!).subarray(1, 4).toString()).toBe('PNG');
      const download = results('a', 'browser_download')[0]!;
      expect(download.isError).toBe(false);
      const csv = findFiles(cwd, /downloads\/(\S+)/.exec(download.result)![1]!).filter((p) =>
        p.includes('ws_a'),
      );
      expect(csv.length).toBeGreaterThan(0);
      expect(fs.readFileSync(csv[0]!, 'utf8')).toContain('Oslo,42');

      expect(browsersUnder(cwd)).toEqual([]);
    });

    it('Ctrl-C while the browser is open closes it', async () => {
      const cwd = makeWorkdir();
      const opened = new Set<string>();
      // Each agent opens a page, then its next model call never answers.
      fake.server.setHandler((body) => {
        const id = agentOf(body) ?? 'unknown';
        if (opened.has(id)) return { hang: true };
        opened.add(id);
        return { toolCalls: [{ name: 'browser_navigate', arguments: { url: `${pages.origin}/` } }] };
      });
      writeConfig(cwd, {
        agents: ['a', 'b'].map((id) =>
          agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `ws_${id}` } }),
        ),
        tools: { browser: true },
      });
      const running = startCli(['--config', 'config.yaml', '--no-display', 'q'], { cwd });
      await running.until(() => fake.server.requests.length >= 4, 'the model calls after browsing', {
        timeoutMs: 90_000,
      });
      expect(browsersUnder(cwd).length).toBeGreaterThan(0);
      running.child.kill('SIGINT');
      const result = await running.result;
      expect(result.code).toBe(130);
      expect(browsersUnder(cwd)).toEqual([]);
    });

    for (const user of ['the current user', 'nobody'] as const) {
      const skip = user === 'nobody' && !nobodyCanRun;
      const why = asRoot ? 'setpriv cannot run the CLI as nobody here' : 'not root: the current user is one';
      it.skipIf(skip)(
        `an agent reads no host file, stays in allowed_origins and sees none of massgen's keys, as ${user}${skip ? ` (skipped: ${why})` : ''}`,
        async () => {
          const cwd = makeWorkdir();
          const secret = 'sk-e2e-browser-secret-8841';
          // A file the user can read (their .env, /etc/shadow as root), with a marker in it.
          const hostFile = path.join(cwd, 'host.env');
          fs.writeFileSync(hostFile, 'API_TOKEN=HOST-FILE-MARKER-3309\n', { mode: 0o644 });
          if (user === 'nobody') fs.chownSync(cwd, 65534, 65534);
          const plan = [
            { name: 'browser_download', arguments: { url: `file://${hostFile}` } },
            { name: 'browser_snapshot', arguments: {} },
            {
              name: 'browser_navigate',
              arguments: {
                url: `${pages.origin}/redirect?to=${encodeURIComponent(`${other.origin}/secret`)}`,
              },
            },
          ];
          const before = other.connections;
          let step = 0;
          let seen: ReturnType<typeof browserProcessesUnder> = [];
          // One agent: it makes the calls one per step, then answers (and votes, when asked to).
          fake.server.setHandler((body) => {
            const call = plan[step];
            step += 1;
            if (call) return { toolCalls: [call] };
            // The browser is open while the agent thinks: what does its process hold?
            if (seen.length === 0) seen = browserProcessesUnder(cwd);
            if (!toolNames(body).includes('new_answer')) return { text: 'done' };
            if (step === plan.length + 1) {
              return { toolCalls: [{ name: 'new_answer', arguments: { content: 'done' } }] };
            }
            return {
              toolCalls: [
                { name: 'vote', arguments: { agent_id: votableIds(body)[0]!, reason: 'only one' } },
              ],
            };
          });
          writeConfig(cwd, {
            agents: [
              agentEntry('a', fake.server.url, { backend: { cwd: 'ws_a', tool_timeout_seconds: 120 } }),
            ],
            tools: { browser: { allowed_origins: [pages.origin] } },
          });
          const result = await runCli(['--config', 'config.yaml', '--no-display', 'Look around'], {
            cwd,
            env: { OPENAI_API_KEY: secret },
            timeoutMs: BROWSING_MS,
            ...(user === 'nobody' ? { user: { uid: 65534, gid: 65534 } } : {}),
          });
          expect(result.stderr).toBe('');
          expect(result.code).toBe(0);
          const finished = (readEvents(onlyLogDir(cwd)) as RunEvent[]).filter(
            (e): e is Extract<RunEvent, { type: 'tool.call.finished' }> => e.type === 'tool.call.finished',
          );
          const resultOf = (tool: string) => finished.find((e) => e.toolName === tool)!;
          expect(resultOf('browser_download')).toMatchObject({ isError: true });
          expect(resultOf('browser_download').result).toContain('is not an http(s) address');
          expect(resultOf('browser_snapshot').result).not.toContain('HOST-FILE-MARKER');
          expect(resultOf('browser_navigate').result).toContain(
            `Request refused: ${other.origin} is not in allowed_origins`,
          );
          expect(JSON.stringify(finished)).not.toMatch(/HOST-FILE-MARKER|ORCHID/);
          expect(other.connections - before).toBe(0);
          // Chromium's environment holds none of massgen's keys; its own sandbox is on except as root.
          expect(seen.length).toBeGreaterThan(0);
          for (const browser of seen) {
            expect(browser.environ.join('\n')).not.toContain(secret);
            expect(browser.environ).toContainEqual(expect.stringMatching(/^PATH=\//));
            expect(browser.args.includes('--no-sandbox')).toBe(asRoot && user !== 'nobody');
          }
          expect(browsersUnder(cwd)).toEqual([]);
        },
      );
    }

    it('an agent without a workspace is a configuration error before any agent starts', async () => {
      const cwd = makeWorkdir();
      writeConfig(cwd, {
        agents: [agentEntry('a', fake.server.url)],
        tools: { browser: true },
      });
      const result = await runCli(['--config', 'config.yaml', '--no-display', 'Hi'], { cwd });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('tools.browser: agent "a" has no workspace');
      expect(fake.server.requests.length).toBe(0);
    });
  },
);
