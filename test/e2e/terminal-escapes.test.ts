/**
 * Model output must never drive the user's terminal. The BUILT CLI runs against the fake
 * OpenAI-compatible server, whose scripted model answers with every kind of terminal control
 * (CSI, OSC 0/2/8/52 with BEL and ST, DCS, APC, the 8-bit CSI, a lone CR, backspace, a bidi override)
 * in its streamed text, its answer and its final answer, and sends the same through a tool: the real
 * MCP server-everything's `echo` returns them as a tool result. Each view is checked:
 *
 * - `--no-display`, `--no-display --debug` and `--automation` through pipes: stdout and stderr carry
 *   no control byte (these views add no colour), and every sequence is shown escaped (`␛]0;PWNED␇`).
 * - The same two views and the live view on a real terminal (tmux): the pane title is not set, no
 *   clipboard buffer is planted (tmux accepts OSC 52 here), the screen shows the sequences escaped,
 *   and the raw bytes the pane received (`pipe-pane`) hold none of the model's sequences — only the
 *   live view's own styling.
 * - The run's `events.jsonl` keeps the text as data: JSON-escaped, exact after parsing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeChatRequestBody, FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import type { RunEvent } from '../../src/types/events.js';
import { shellQuote, writeCliWrapper } from '../support/tmux-cli-wrapper.js';
import { paneState } from '../support/tmux-server.js';
import {
  REPO_ROOT,
  agentEntry,
  agentOf,
  makeWorkdir,
  onlyLogDir,
  persona,
  runCli,
  toolNames,
  useFakeServer,
  votableIds,
  writeConfig,
} from './cli-harness.js';
import { waitUntil } from '../support/wait.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const tmuxVersion = ((): string | null => {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : null;
})();

interface Kind {
  name: string;
  /** What the model (or the tool) sends. */
  raw: string;
  /** How every view must show it. */
  shown: string;
  /** How the one-line tool summary of the plain view shows it (it folds whitespace, CR included). */
  oneLine?: string;
  /** Substrings of `raw` that must never reach a terminal (the sequences a terminal would act on). */
  active: string[];
}

const ESC = '\x1b';
const KINDS: Kind[] = [
  {
    name: "the issue's answer: OSC 0 title (BEL), clear screen, forged colour",
    raw: `${ESC}]0;PWNED${'\x07'}${ESC}[2J${ESC}[31mFAKE SYSTEM MESSAGE${ESC}[0m`,
    shown: '␛]0;PWNED␇␛[2J␛[31mFAKE SYSTEM MESSAGE␛[0m',
    active: [`${ESC}]0;PWNED`, `${ESC}[2J`, `${ESC}[31mFAKE`],
  },
  {
    name: 'OSC 8 hyperlink (BEL)',
    raw: `${ESC}]8;;https://evil.example\x07click${ESC}]8;;\x07`,
    shown: '␛]8;;https://evil.example␇click␛]8;;␇',
    active: [`${ESC}]8;;https://evil`, `${ESC}]8;;\x07`],
  },
  {
    name: 'OSC 2 title (ST)',
    raw: `${ESC}]2;PWNED-ST${ESC}\\`,
    shown: '␛]2;PWNED-ST␛\\',
    active: [`${ESC}]2;`],
  },
  {
    name: 'OSC 52 clipboard',
    raw: `${ESC}]52;c;UFdORUQ=\x07`,
    shown: '␛]52;c;UFdORUQ=␇',
    active: [`${ESC}]52;`],
  },
  {
    name: 'DCS',
    raw: `${ESC}PqDCS-PAYLOAD${ESC}\\`,
    shown: '␛PqDCS-PAYLOAD␛\\',
    active: [`${ESC}Pq`],
  },
  {
    name: 'APC',
    raw: `${ESC}_APC-PAYLOAD${ESC}\\`,
    shown: '␛_APC-PAYLOAD␛\\',
    active: [`${ESC}_`],
  },
  {
    name: '8-bit C1 CSI',
    raw: '\u009b2J\u009b31mC1-RED',
    shown: '\\u009B2J\\u009B31mC1-RED',
    active: ['\u009b'],
  },
  {
    name: 'lone CR',
    raw: 'overwrite-me\rFORGED',
    shown: 'overwrite-me␍FORGED',
    oneLine: 'overwrite-me FORGED',
    active: ['overwrite-me\rFORGED'],
  },
  {
    name: 'backspace',
    raw: 'abc\b\b\bXYZ',
    shown: 'abc␈␈␈XYZ',
    active: ['\b'],
  },
  {
    name: 'bidi override',
    raw: 'invoice\u202Efdp.exe\u202C',
    shown: 'invoice\\u202Efdp.exe\\u202C',
    active: ['\u202E', '\u202C'],
  },
];
/** Ordinary text, shown exactly as sent (tab included). */
const PLAIN = 'kept as is: a\ttab, 中文, 😀, café';
/** The model's answer: one kind per line, then the ordinary line. */
const ANSWER = [...KINDS.map((k, i) => `K${i} ${k.raw}`), PLAIN].join('\n');
const answerShown = (i: number, k: Kind) => `K${i} ${k.shown}`;
/** The tool result of call `i` (server-everything's `echo`). */
const echoShown = (i: number, k: Kind, oneLine = false) =>
  `Echo: T${i} ${oneLine ? (k.oneLine ?? k.shown) : k.shown}`;

/** Any control a terminal acts on, other than newline and tab (for output of views that add no styling). */
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\x00-\x08\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/u;

const fake = useFakeServer();

/**
 * The scripted team: `a` (agent1, with server-everything) streams the answer as text while it makes
 * one `echo` call per kind, then — once the tool results are in and `gate` opens — submits the answer;
 * `b` answers plainly; both vote for agent1; `a` presents `Final from a:` and the answer.
 */
function scriptedModel(gate: { opened: Promise<void>; reached: boolean }) {
  return async (body: FakeChatRequestBody, _index: number, view: FakeRequestView): Promise<FakeResponse> => {
    const id = agentOf(body) ?? 'unknown';
    if (!toolNames(body).includes('new_answer'))
      return { text: `Final from ${id}:\n${ANSWER}`, chunkSize: 4 };
    if (votableIds(body).includes('agent1')) {
      return {
        toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'agent1 shows it all' } }],
      };
    }
    if (id !== 'a')
      return { toolCalls: [{ name: 'new_answer', arguments: { content: `plain answer of ${id}` } }] };
    if (!view.text.includes(`Echo: T${KINDS.length - 1}`)) {
      return {
        text: `a streams:\n${ANSWER}\n`,
        chunkSize: 5,
        toolCalls: KINDS.map((k, i) => ({
          name: 'mcp__everything__echo',
          arguments: { message: `T${i} ${k.raw}` },
        })),
      };
    }
    gate.reached = true;
    await gate.opened;
    return { toolCalls: [{ name: 'new_answer', arguments: { content: ANSWER } }] };
  };
}

function openGate() {
  let open = () => {};
  const gate = { opened: new Promise<void>((resolve) => (open = resolve)), reached: false };
  return { gate, open };
}

function setUp(): string {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: [
      agentEntry('a', fake.server.url, {
        system_message: persona('a'),
        backend: {
          mcp_servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio', cwd] } },
        },
      }),
      agentEntry('b', fake.server.url, { system_message: persona('b') }),
    ],
    timeout_settings: { agent_turn_timeout_seconds: 60, orchestrator_timeout_seconds: 90 },
  });
  return cwd;
}

/** The run's events.jsonl: the model's text kept as data, JSON-escaped, exact after parsing. */
function expectLogsKeepData(cwd: string): void {
  const text = fs.readFileSync(path.join(onlyLogDir(cwd), 'events.jsonl'), 'utf8');
  expect(text).not.toContain(ESC);
  expect(text).toContain('\\u001b]0;PWNED\\u0007\\u001b[2J');
  const events = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RunEvent);
  const results = events.flatMap((e) => (e.type === 'tool.call.finished' ? [e.result] : []));
  KINDS.forEach((k, i) => expect(results).toContain(`Echo: T${i} ${k.raw}`));
  const final = events.find((e) => e.type === 'presentation.finished');
  expect(final?.type === 'presentation.finished' ? final.content : null).toBe(`Final from a:\n${ANSWER}`);
}

describe('model and tool output is shown inert, never run by the terminal', () => {
  it('--no-display: the final answer, the streamed text and the tool results are shown escaped; no control byte on stdout or stderr', async () => {
    const { gate, open } = openGate();
    open();
    fake.server.setHandler(scriptedModel(gate));
    const cwd = setUp();
    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Show everything'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANY_CONTROL);
    expect(result.stdout).toContain(`=== Final answer (a) ===\nFinal from a:\n`);
    KINDS.forEach((k, i) => {
      expect(result.stdout, k.name).toContain(`\n${answerShown(i, k)}\n`); // the final answer
      expect(result.stdout, k.name).toContain(`[a] ${answerShown(i, k)}\n`); // the streamed text
      expect(result.stdout, k.name).toContain(`↳ mcp__everything__echo: ${echoShown(i, k, true)}\n`);
    });
    expect(result.stdout).toContain(`\n${PLAIN}\n`);
    expectLogsKeepData(cwd);
  });

  it('--no-display --debug: the [event] lines on stderr hold no control byte either', async () => {
    const { gate, open } = openGate();
    open();
    fake.server.setHandler(scriptedModel(gate));
    const cwd = setUp();
    const result = await runCli(['--config', 'config.yaml', '--no-display', '--debug', 'Show everything'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANY_CONTROL);
    expect(result.stderr).not.toMatch(ANY_CONTROL);
    expect(result.stderr).toContain('[event] {"type":"tool.call.finished"');
    // JSON escapes C0 controls; C1 and bidi controls, which JSON leaves raw, are escaped as well.
    expect(result.stderr).toContain('Echo: T6 \\u009B2J\\u009B31mC1-RED');
    expect(result.stderr).toContain('Echo: T9 invoice\\u202Efdp.exe\\u202C');
    KINDS.forEach((k, i) => expect(result.stdout, k.name).toContain(`\n${answerShown(i, k)}\n`));
  });

  it('--automation: ANSWER_PREVIEW shows the sequences escaped; no control byte on stdout', async () => {
    const { gate, open } = openGate();
    open();
    fake.server.setHandler(scriptedModel(gate));
    const cwd = setUp();
    const result = await runCli(['--config', 'config.yaml', '--automation', 'Show everything'], {
      cwd,
      timeoutMs: 90_000,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANY_CONTROL);
    expect(result.stderr).not.toMatch(ANY_CONTROL);
    const preview = result.stdout.split('\n').find((line) => line.startsWith('ANSWER_PREVIEW: '));
    // One line, cut at 200 characters: the first kinds show in full.
    expect(
      preview?.startsWith(
        `ANSWER_PREVIEW: Final from a: ${answerShown(0, KINDS[0]!)} ${answerShown(1, KINDS[1]!)} ${answerShown(2, KINDS[2]!)} `,
      ),
    ).toBe(true);
    expectLogsKeepData(cwd);
  });
});

/** The pane's title before the run; OSC 0/2 (and, in tmux, APC) would change it. */
const TITLE = 'massgen-e2e-title';

/**
 * A private tmux server whose socket lives in `dir` (removed with it). Panes stay after their command
 * exits, tmux accepts OSC 52 into its paste buffers, and everything a pane receives is recorded raw.
 */
function tmuxServer(dir: string) {
  const socket = path.join(dir, 'tmux.sock');
  const tmux = (...args: string[]): string => {
    const run = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout;
  };
  return {
    /** Runs `command` in a detached pane (`cat` holds it until the recording is in place). */
    start(name: string, command: string, rawLog: string, rows: number) {
      tmux('new-session', '-d', '-s', name, '-x', '160', '-y', String(rows), 'cat');
      tmux('select-pane', '-t', name, '-T', TITLE);
      tmux('set-option', '-t', name, 'remain-on-exit', 'on');
      tmux('set-option', '-s', 'set-clipboard', 'on');
      tmux('pipe-pane', '-o', '-t', name, `cat >> ${shellQuote(rawLog)}`);
      tmux('respawn-pane', '-k', '-t', name, command);
    },
    keys(name: string, ...keys: string[]) {
      tmux('send-keys', '-t', name, ...keys);
    },
    /** The visible screen. */
    visible(name: string): string {
      return tmux('capture-pane', '-p', '-J', '-t', name);
    },
    /** Scrollback and screen, wrapped lines joined. */
    everything(name: string): string {
      return tmux('capture-pane', '-p', '-J', '-S', '-', '-t', name);
    },
    title(name: string): string {
      return tmux('display-message', '-p', '-t', name, '#{pane_title}').trim();
    },
    buffers(): string {
      return tmux('list-buffers');
    },
    /** For a wait that timed out: the screen and what the pane's processes are doing. */
    seen(name: string): Promise<string> {
      return paneState(tmux, name, dir);
    },
    kill() {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    },
  };
}

/** Runs the CLI with a clean environment on an xterm, then prints `MASSGEN-EXITED <code>`. */
const writeWrapper = (cwd: string): string => writeCliWrapper(cwd, 'echo "MASSGEN-EXITED $?"');

const rawText = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** The terminal was not driven: no title, no clipboard buffer, none of the model's sequences in the bytes. */
function expectTerminalUntouched(tmux: ReturnType<typeof tmuxServer>, name: string, raw: string): void {
  expect(tmux.title(name)).toBe(TITLE);
  expect(tmux.buffers()).toBe('');
  for (const k of KINDS) for (const active of k.active) expect(raw, k.name).not.toContain(active);
  expect(raw).not.toContain(`${ESC}]`); // no OSC at all: massgen never sets titles, links or the clipboard
  expect(raw).not.toContain('\x07');
}

describe.skipIf(tmuxVersion === null)(
  tmuxVersion === null
    ? 'on a real terminal (skipped: tmux is not on PATH)'
    : `on a real terminal (${tmuxVersion})`,
  () => {
    it.each([
      ['--no-display', ['--no-display']],
      ['--automation', ['--automation']],
    ])('%s: title and clipboard untouched, the screen shows the sequences escaped', async (_name, flags) => {
      const { gate, open } = openGate();
      open();
      fake.server.setHandler(scriptedModel(gate));
      const cwd = setUp();
      const rawLog = path.join(cwd, 'pane.raw');
      const tmux = tmuxServer(cwd);
      try {
        tmux.start(
          'run',
          [writeWrapper(cwd), '--config', 'config.yaml', ...flags, shellQuote('Show everything')].join(' '),
          rawLog,
          50,
        );
        await waitUntil(() => rawText(rawLog).includes('MASSGEN-EXITED'), 'massgen to exit', {
          timeoutMs: 90_000,
          seen: () => tmux.seen('run'),
        });
        const raw = rawText(rawLog);
        expect(raw).toContain('MASSGEN-EXITED 0');
        expectTerminalUntouched(tmux, 'run', raw);
        // These views add no styling: not one escape byte, and every CR is the terminal's own CRLF.
        expect(raw).not.toContain(ESC);
        expect(raw.replace(/\r\n/g, '\n')).not.toMatch(ANY_CONTROL);
        const screen = tmux.everything('run');
        expect(screen).toContain(`K0 ${KINDS[0]!.shown}`);
        if (flags.includes('--no-display')) {
          KINDS.forEach((k, i) => {
            expect(screen, k.name).toContain(answerShown(i, k));
            expect(screen, k.name).toContain(echoShown(i, k, true));
          });
        }
      } finally {
        tmux.kill();
      }
    });

    it('the live view: tool results in the transcript and the final answer on the final screen are shown escaped; title, clipboard and screen untouched', async () => {
      const { gate, open } = openGate();
      fake.server.setHandler(scriptedModel(gate));
      const cwd = setUp();
      const rawLog = path.join(cwd, 'pane.raw');
      const tmux = tmuxServer(cwd);
      try {
        tmux.start('live', `${writeWrapper(cwd)} --config config.yaml 'Show everything'`, rawLog, 80);
        // Agent a has its tool results and waits: show its transcript (key 1) while nothing moves.
        await waitUntil(() => gate.reached, 'the tool results to reach agent a', {
          seen: () => tmux.seen('live'),
        });
        tmux.keys('live', '1');
        await waitUntil(
          () => tmux.visible('live').includes(echoShown(KINDS.length - 1, KINDS.at(-1)!)),
          "agent a's transcript with the last tool result",
          { seen: () => tmux.seen('live') },
        );
        const transcript = tmux.visible('live');
        KINDS.forEach((k, i) => expect(transcript, k.name).toContain(echoShown(i, k)));
        expect(transcript).toContain(answerShown(0, KINDS[0]!)); // the streamed text
        expect(tmux.title('live')).toBe(TITLE);
        open();
        await waitUntil(() => rawText(rawLog).includes('MASSGEN-EXITED'), 'massgen to exit', {
          seen: () => tmux.seen('live'),
        });
        const raw = rawText(rawLog);
        expect(raw).toContain('MASSGEN-EXITED 0');
        expectTerminalUntouched(tmux, 'live', raw);
        // The final screen stays in the terminal: the final answer in full, shown escaped.
        const screen = tmux.everything('live');
        KINDS.forEach((k, i) => expect(screen, k.name).toContain(answerShown(i, k)));
        expect(screen).toContain(PLAIN.replace('\t', '  '));
        expect(screen).toMatch(/Completed in .* winner a/);
      } finally {
        open();
        tmux.kill();
      }
    });
  },
);
