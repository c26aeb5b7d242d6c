import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import type { ServeServer } from '../server/openai/serve-server.js';
import type { WebServer } from '../server/web/web-server.js';
import { ExitCode } from '../types/errors.js';
import { runCli, stoppedBy, type CliIo } from './main.js';
import { commanderExit, setUpSubcommand } from './subcommand-setup.js';

/** The scripted team every demo runs: `examples/demo/team.yaml`, shipped with the package. */
export const DEMO_CONFIG = '@examples/demo/team.yaml';
const DEFAULT_QUESTION = 'At what temperature does water boil?';
const FOLLOW_UP = 'What is 6 times 7?';

const demoHelp = `
No API key, no model: a scripted three-agent team (backend type demo) plays massgen's real protocol —
answers, a revision, a vote reset, votes and the final presentation. It knows arithmetic on two numbers
and a few facts. Each demo works in a fresh temporary folder (its logs are kept there) and its servers
listen on 127.0.0.1, on a free port, with a token or key like every massgen server (docs/demo.md).

Examples:
  $ massgen demo                         # the terminal view
  $ massgen demo "What is 12 plus 30?"
  $ massgen demo --web                   # the web UI: prints its address (with the token), opens it on a desktop
  $ massgen demo serve                   # an OpenAI-compatible API: prints the base URL, a key, and how to call it
  $ massgen batch --config ${DEMO_CONFIG} --input @examples/demo/qa.jsonl --output results.jsonl
  $ massgen eval --config ${DEMO_CONFIG} --dataset @examples/demo/qa.jsonl --scorer contains`;

/** What `massgen demo …` asked for. */
export interface DemoRequest {
  mode: 'terminal' | 'web' | 'serve';
  question: string;
  /** `--no-open`: never open a browser. */
  open: boolean;
  /** `--no-display`: plain lines instead of the live view. */
  display: boolean;
}

/** Parses `massgen demo …` (the arguments after `demo`). Errors are commander's. */
export function parseDemoArgs(argv: readonly string[]): DemoRequest {
  const program = new Command('massgen demo')
    .description('Try massgen without a key: a scripted team in the terminal, the web UI or an API server.')
    .usage('[--web] [question...] | serve')
    .argument('[question...]', `the question (default: "${DEFAULT_QUESTION}"), or "serve"`)
    .option('--web', 'the web UI on the scripted team, asking the question there', false)
    .option('--no-open', 'with --web: print the address only, never open a browser')
    .option('--no-display', "plain lines (each agent's output prefixed by its id) instead of the live view")
    .addHelpText('after', demoHelp)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
  program.parse([...argv], { from: 'user' });
  const options = program.opts<{ web: boolean; open: boolean; display: boolean }>();
  const words = program.args;
  if (words.length === 1 && words[0] === 'serve') {
    if (options.web) throw new DemoUsageError('use either massgen demo serve or massgen demo --web');
    return { mode: 'serve', question: '', open: false, display: true };
  }
  const question = words.join(' ').trim() || DEFAULT_QUESTION;
  return { mode: options.web ? 'web' : 'terminal', question, ...options };
}

class DemoUsageError extends Error {}

/**
 * True where a browser can open on the user's screen: a Linux or BSD desktop session (an X or Wayland
 * display), macOS or Windows unless reached over SSH. Elsewhere the address is only printed.
 */
export function onDesktop(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): boolean {
  if (platform === 'darwin' || platform === 'win32') return !env.SSH_CONNECTION && !env.SSH_TTY;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** `massgen demo …` (argv after `demo`). Never throws. */
export async function runDemoCli(argv: readonly string[], io: CliIo): Promise<number> {
  let request: DemoRequest;
  try {
    request = parseDemoArgs(argv);
  } catch (error) {
    const parseExit = commanderExit('demo', error, io);
    if (parseExit !== undefined) return parseExit;
    io.stderr(`massgen demo: error: ${(error as Error).message}\n`);
    return ExitCode.config;
  }
  // A fresh folder: the demo's logs never land in the user's project, and its servers show nothing else.
  let dir: string;
  try {
    dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-demo-'));
  } catch (error) {
    io.stderr(
      `massgen demo: error: cannot make its working folder in ${os.tmpdir()}: ${(error as NodeJS.ErrnoException).code ?? String(error)}\nhint: set TMPDIR to a folder you can write to\n`,
    );
    return ExitCode.config;
  }
  const folderIo: CliIo = { ...io, cwd: dir };
  if (request.mode === 'web') return demoWeb(request, folderIo);
  if (request.mode === 'serve') return demoServe(folderIo);
  io.stdout(
    `massgen demo: a scripted team (massgen --config ${DEMO_CONFIG}) — no model is called, no key needed.\n\n`,
  );
  const code = await runCli(
    ['--config', DEMO_CONFIG, ...(request.display ? [] : ['--no-display']), '--', request.question],
    folderIo,
  );
  if (code === ExitCode.success) io.stdout(nextSteps());
  return code;
}

function nextSteps(): string {
  return `
Next, still without a key:
  massgen demo --web      the web UI on the same team
  massgen demo serve      the team behind an OpenAI-compatible API
  massgen batch --config ${DEMO_CONFIG} --input @examples/demo/qa.jsonl --output results.jsonl
  massgen eval --config ${DEMO_CONFIG} --dataset @examples/demo/qa.jsonl --scorer contains
`;
}

async function demoWeb(request: DemoRequest, io: CliIo): Promise<number> {
  const { env } = setUpSubcommand(io);
  const { openBrowser, runWebCommand } = await import('./web-command.js');
  io.stdout(
    `massgen demo --web: the web UI on a scripted team — no model is called, no key needed; runs are kept in ${io.cwd}\n`,
  );
  return runWebCommand({
    cwd: io.cwd,
    env,
    config: DEMO_CONFIG,
    port: 0,
    open: false,
    projectConfigs: () => false,
    stdout: io.stdout,
    stderr: io.stderr,
    stopped: stoppedBy(io.signal),
    onListening: async (server) => {
      const page = await startDemoRun(server, request.question);
      io.stdout(
        `The demo question is running: ${page}\nAsk follow-ups on that page, e.g. "${FOLLOW_UP}" (the team knows arithmetic and a few facts).\n`,
      );
      if (request.open && onDesktop(io.env)) openBrowser(page);
    },
  });
}

/** Asks the question through the server's own API, as the page would; returns the run's page (with the token). */
async function startDemoRun(server: WebServer, question: string): Promise<string> {
  const origin = new URL(server.url).origin;
  const token = server.authToken ?? '';
  const response = await fetch(`${origin}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ question, config: DEMO_CONFIG }),
  });
  const body = (await response.json().catch(() => ({}))) as { id?: unknown; error?: unknown };
  if (!response.ok || typeof body.id !== 'string')
    throw new Error(`the demo run did not start: ${String(body.error ?? `HTTP ${response.status}`)}`);
  return `${origin}/runs/${encodeURIComponent(body.id)}?token=${token}`;
}

async function demoServe(io: CliIo): Promise<number> {
  const { env, scrub } = setUpSubcommand(io);
  // The demo always makes its own key, so it can print it: a key of the user's stays unprinted.
  delete env.MASSGEN_SERVER_API_KEY;
  const { parseServeArgs, runServeCommand } = await import('./serve-command.js');
  io.stdout(
    `massgen demo serve: model "massgen" is a scripted team — no model is called, no key needed; runs are kept in ${io.cwd}\n`,
  );
  return runServeCommand(parseServeArgs(['--config', DEMO_CONFIG, '--port', '0']), {
    cwd: io.cwd,
    env,
    projectConfigs: () => false,
    stdout: io.stdout,
    stderr: io.stderr,
    stopped: stoppedBy(io.signal),
    scrub,
    onListening: (server) => io.stdout(howToCall(server)),
  });
}

/** A curl line and the `openai` packages' calls against `server`, ready to paste. */
export function howToCall(server: Pick<ServeServer, 'url' | 'apiKey'>): string {
  const { url } = server;
  const key = server.apiKey ?? '';
  const body = JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: FOLLOW_UP }] });
  return `
Try it (any OpenAI client, model "massgen"):
  curl -s ${url}/chat/completions -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '${body}'

  // JavaScript (npm install openai), in an .mjs file:
  import OpenAI from 'openai';
  const client = new OpenAI({ baseURL: '${url}', apiKey: '${key}' });
  const reply = await client.chat.completions.create({ model: 'massgen', messages: [{ role: 'user', content: '${FOLLOW_UP}' }] });
  console.log(reply.choices[0].message.content);

  # Python (pip install openai):
  from openai import OpenAI
  client = OpenAI(base_url='${url}', api_key='${key}')
  print(client.chat.completions.create(model='massgen', messages=[{'role': 'user', 'content': '${FOLLOW_UP}'}]).choices[0].message.content)

`;
}
