import { Command, InvalidArgumentError, Option } from 'commander';
import { backendTypes, massgenVersion } from '../app/essentials.js';

/** Parsed command line. */
export interface CliOptions {
  question: string | undefined;
  config?: string;
  backend?: string;
  model?: string;
  localModel?: string;
  provider?: string;
  baseUrl?: string;
  systemMessage?: string;
  display: boolean;
  automation: boolean;
  debug: boolean;
  logs: boolean;
  orchestratorTimeout?: number;
  /** `--attach FILE` (repeatable): files or URLs that go with the question (docs/multimodal.md). */
  attach?: string[];
  /** `--inbox-dir DIR`: files dropped there become messages to the agents while the run goes. */
  inboxDir?: string;
  /** `--eval-criteria FILE`: the checklist's criteria (YAML or JSON). */
  evalCriteria?: string;
  /** `--review`: choose which of the winner's changes to isolated context paths are applied. */
  review: boolean;
  /** `--review=all` or `--review=none` (read as `--review-mode`). */
  reviewMode?: 'all' | 'none';
  /** `--keep-worktrees`: leave the agents' checkouts and branches after the run. */
  keepWorktrees: boolean;
  /** `--allow-private-urls`: attachment URLs may reach this machine and private networks. */
  allowPrivateUrls: boolean;
  /** A file, or `true` for `--validate --config FILE`. */
  validate?: string | true;
  listBackends: boolean;
  json: boolean;
  listSessions: boolean;
  continue: boolean;
  sessionId?: string;
  setup: boolean;
  listExamples: boolean;
  example?: string;
  web: boolean;
  port?: number;
  host?: string;
  authToken?: string;
  /** `--no-auth` makes it false. */
  auth: boolean;
  allowedHost?: string[];
  open: boolean;
  showSchema: boolean;
  /** `--trust-project`: use the working folder's config and .env this run without asking. */
  trustProject: boolean;
}

const positiveSeconds = (value: string): number => {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError('expected a positive number of seconds');
  return seconds;
};

const port = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number (0–65535)');
  return n;
};

const examples = `
Examples:
  $ massgen demo [--web | serve]   # no key at all: a scripted team in the terminal, the web UI or an API
  $ massgen "Why is the sky blue?"   # no key, no config: two agents on a local model (downloaded once)
  $ massgen --local-model ./models/qwen2.5-1.5b-instruct-q4_k_m.gguf "question"
  $ massgen --config team.yaml "What are the trade-offs of CRDTs vs OT?"
  $ massgen --model claude-sonnet-4-5 "Summarise RFC 9110 in one paragraph"      # quick mode
  $ massgen --backend chatcompletion --provider groq --model llama-3.3-70b-versatile "Hi"
  $ massgen --backend chatcompletion --model llama3 --base-url http://localhost:11434/v1 "Hi"
  $ massgen --config team.yaml --automation "question"   # machine-readable output
  $ massgen --attach photo.png --attach talk.mp3 "What is in these?"   # media in (docs/multimodal.md)
  $ massgen --validate team.yaml [--json]
  $ massgen --setup                          # choose providers, keys and a team once
  $ massgen trust [DIR]                      # trust a folder's .massgen/config.yaml and .env (massgen trust --help)
  $ massgen --config @examples/teams/three_mixed "question"
  $ massgen --list-examples
  $ massgen --example basic/three_agents > team.yaml
  $ massgen --web [--config team.yaml] [--port 8000] [--open]   # the web UI in your browser
  $ massgen serve --config team.yaml [--port 4000]   # OpenAI-compatible API (massgen serve --help)
  $ claude mcp add massgen -- npx massgen mcp      # massgen as an MCP server for coding agents
  $ massgen skill install [--target claude|codex|gemini] [--user]   # the Agent Skill
  $ massgen skills list|add <folder>|validate|accept <name>   # skills your agents use (docs/skills.md)
  $ massgen memory list|search <query>|forget <id>|export   # what teams remember (docs/memory.md)
  $ massgen step --session-dir DIR --config team.yaml --agent ID "question"   # one agent, one action
  $ massgen batch --config team.yaml --input q.jsonl --output r.jsonl   # many questions (massgen batch --help)
  $ massgen worker --queue redis://127.0.0.1:6379   # runs queued by batch/serve --queue (docs/batch.md)
  $ massgen eval --config team.yaml --dataset qa.jsonl --scorer exact   # does the team beat one model? (docs/eval.md)

Without --config: ./.massgen/config.yaml, then ~/.config/massgen/config.yaml (massgen --setup),
else two agents on a local model. Keys: environment, then ./.env, then ~/.config/massgen/.env.
A folder's own .massgen/config.yaml and .env are used only once you trust it: asked on a terminal,
else massgen trust [DIR] (massgen trust --help).

Exit codes: 0 success, 1 configuration or usage error, or the run could not start (no provider,
            server or model hub reachable), 2 run failed, 3 timed out with no answer, 130 interrupted.
Logs: .massgen/massgen_logs/log_<timestamp>/ in the working directory.`;

/** Builds the commander program. Parsing errors surface as exceptions (see `exitOverride`). */
export function buildProgram(): Command {
  return new Command('massgen')
    .description(
      "Several AI agents attack the same question in parallel, see each other's answers, and vote on the best.",
    )
    .version(massgenVersion(), '-V, --version')
    .argument('[question...]', 'the question to answer')
    .option(
      '-c, --config <file>',
      'YAML (or JSON) config file with `agent:` or `agents:`, or @examples/NAME (a bundled example)',
    )
    .addOption(
      new Option('--backend <type>', 'backend type for a one-agent run without a config file').choices(
        backendTypes(),
      ),
    )
    .option(
      '--model <name>',
      'model for a one-agent run; without --backend the backend is picked from the name (gpt-*, claude-*, gemini-*, grok-*, glm-*, …)',
    )
    .option(
      '--local-model <path>',
      'run two agents on this local GGUF model (a path or hf:<user>/<repo>/<file>.gguf)',
    )
    .option('--provider <name>', 'a preset of the backend, e.g. --backend chatcompletion --provider groq')
    .option('--base-url <url>', 'API base URL for --backend')
    .option('--system-message <text>', 'system message for --backend')
    .option(
      '--no-display',
      "plain streaming text: each agent's output prefixed by its id, then the final answer",
    )
    .option('--automation', 'quiet, machine-readable output (LOG_DIR, STATUS, WINNER, ANSWER_FILE, …)', false)
    .option('--debug', 'print stack traces, provider warnings and every event to stderr', false)
    .option('--no-logs', 'do not write .massgen/massgen_logs')
    .option('--orchestrator-timeout <seconds>', 'stop coordination after this many seconds', positiveSeconds)
    .option(
      '--attach <file>',
      'a file (or http(s) URL) that goes with the question (repeatable): text is added to the question; images, audio, video and PDFs go to every agent whose model takes them',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--inbox-dir <dir>',
      'steer the run from files: each file dropped in DIR is a message to the agents (first line @AGENT: to one agent); then moved to DIR/delivered/',
    )
    .option(
      '--eval-criteria <file>',
      'checklist criteria for voting_sensitivity: checklist_gated (YAML/JSON: aspiration and 4-7 criteria)',
    )
    .option(
      '--review',
      "write_mode: worktree: show the winner's changes file by file and hunk by hunk and choose which to apply (without a terminal: a file handshake in the log folder); --review=all or --review=none decide without asking",
      false,
    )
    .addOption(new Option('--review-mode <mode>').choices(['all', 'none']).hideHelp())
    .option(
      '--keep-worktrees',
      "write_mode: worktree: keep the agents' checkouts and branches after the run",
      false,
    )
    .option(
      '--trust-project',
      "use the working folder's .massgen/config.yaml and .env this run without asking (nothing is remembered; massgen trust remembers)",
      false,
    )
    .option(
      '--allow-private-urls',
      'attachment URLs may reach this machine and private networks (by default only public addresses are fetched)',
      false,
    )
    .option('--validate [file]', 'check a config file (this one, or --config FILE) without running it')
    .option('--list-backends', 'list every backend type with its key variable and whether it is set', false)
    .option('--json', 'with --validate, --list-backends or --list-sessions: print JSON', false)
    .option('--list-sessions', 'list the sessions saved in .massgen/sessions, newest first', false)
    .option('--continue', 'continue the latest session (with a question: run it as its next turn)', false)
    .option('--session-id <id>', 'continue this session (with a question: run it as its next turn)')
    .option(
      '--setup',
      'choose providers, API keys and a team preset; writes ~/.config/massgen/config.yaml and .env',
      false,
    )
    .option('--list-examples', 'list the bundled example configs', false)
    .option('--show-schema', "print the config file's JSON Schema (for editors: yaml-language-server)", false)
    .option(
      '--example <name>',
      'print a bundled example config, e.g. --example basic/three_agents > team.yaml',
    )
    .option('--web', 'start the web UI: ask, watch, steer and replay runs in a browser', false)
    .option('--port <number>', 'with --web: the port (default 8000; 0 picks a free one)', port)
    .option('--host <address>', 'with --web: the address to listen on (default 127.0.0.1)')
    .option(
      '--auth-token <token>',
      'with --web: the token every request must carry (default: one is generated)',
    )
    .option('--no-auth', 'with --web: no token (loopback only): every program on this machine can use it')
    .option(
      '--allowed-host <name>',
      'with --web: also answer to this Host name (repeatable), e.g. behind a proxy',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--open', 'with --web: open the page in the browser', false)
    .addHelpText('after', examples)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (text) => process.stdout.write(text) })
    .showSuggestionAfterError(true);
}

export function parseCli(argv: readonly string[]): CliOptions {
  const program = buildProgram();
  // `--review=all|none` beside a plain `--review`: commander has no optional value that never takes
  // the question as its value, so the `=` form is read as a hidden option.
  const args = argv.flatMap((arg) => {
    const mode = /^--review=(.*)$/.exec(arg);
    return mode ? ['--review-mode', mode[1] as string] : [arg];
  });
  program.parse(args, { from: 'user' });
  const opts = program.opts<Omit<CliOptions, 'question'>>();
  const words = program.args;
  return { ...opts, question: words.length > 0 ? words.join(' ') : undefined };
}
