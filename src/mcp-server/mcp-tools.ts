import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import { listExamples, type Env } from '../app/essentials.js';
import { validateConfig } from '../app/validate.js';
import { MassGenError, describeError } from '../types/errors.js';
import type { Clock } from '../util/clock.js';
import { systemClock } from '../util/clock.js';
import { ServerBusyError, type RunRegistry } from './run-registry.js';
import { runLine, runResult, runStatus } from './run-summary.js';
import type { Milestone } from './tracked-run.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The longest a single `status` or `result` call waits (clients have their own request timeouts too). */
export const MAX_WAIT_SECONDS = 3600;
/** How long `result` waits when the client does not say. */
export const DEFAULT_RESULT_WAIT_SECONDS = 25;

/** Input schemas of the tools, exported so the docs and tests can refer to them. */
export const toolInputs = {
  run: {
    question: z.string().min(1).describe('The task or question for the team, with your evaluation criteria.'),
    config: z
      .string()
      .optional()
      .describe(
        'A team config: a YAML file (relative to the folder massgen mcp runs in) or a bundled example name (list_examples). Default: the server --config.',
      ),
    context_paths: z
      .array(
        z.object({
          path: z.string().min(1).describe('A folder or file, absolute or relative to the server folder.'),
          permission: z
            .enum(['read', 'write'])
            .optional()
            .describe('read (default), or write: the winner may write here while presenting.'),
        }),
      )
      .optional()
      .describe('Your project folders the agents may read (and the winner write).'),
    attachments: z
      .array(z.string().min(1))
      .optional()
      .describe('Text files (up to 1 MiB each) whose contents are appended to the question.'),
  },
  status: {
    run_id: z.string().min(1),
    wait_seconds: z
      .number()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(
        'Wait this long (or until the run ends), with progress notifications, before answering. Default 0.',
      ),
  },
  result: {
    run_id: z.string().min(1),
    timeout_seconds: z
      .number()
      .min(0)
      .max(MAX_WAIT_SECONDS)
      .optional()
      .describe(`Wait up to this long for the run to end. Default ${DEFAULT_RESULT_WAIT_SECONDS}.`),
  },
  cancel: { run_id: z.string().min(1) },
  validate_config: {
    config: z.string().min(1).describe('A YAML file (relative to the server folder) or an example name.'),
  },
};

/** Options of {@link registerMassGenTools}. */
export interface MassGenToolsOptions {
  cwd: string;
  env: Env;
  clock?: Clock;
}

const json = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  structuredContent: value as Record<string, unknown>,
  ...(isError ? { isError: true } : {}),
});

/** A tool error the agent can act on: one line, and what to do about it. */
function failure(error: unknown): CallToolResult {
  const hint =
    error instanceof ServerBusyError
      ? `retry in ${error.retryAfterSeconds}s, or wait for a run to end (status, result)`
      : error instanceof MassGenError
        ? error.hint
        : undefined;
  const text = `massgen: ${describeError(error)}${hint ? `\nhint: ${hint}` : ''}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** Sends `notifications/progress` for the request, when the client asked for them (a progress token). */
function progressSender(extra: Extra): ((milestone: Milestone) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (milestone) => {
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: milestone.count, message: milestone.message },
      })
      .catch(() => undefined); // the client went away: the run goes on regardless
  };
}

const guarded =
  <A>(handler: (args: A, extra: Extra) => Promise<CallToolResult>) =>
  async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await handler(args, extra);
    } catch (error) {
      return failure(error);
    }
  };

/**
 * The massgen tools on an MCP server: `run` (returns a run id at once), `status` (with progress while
 * waiting), `result` (waits up to a timeout), `cancel`, `list_runs`, `list_examples`, `validate_config`.
 * Every session's server shares `runs`, so runs outlive the session that started them.
 */
export function registerMassGenTools(
  server: McpServer,
  runs: RunRegistry,
  options: MassGenToolsOptions,
): void {
  const clock = options.clock ?? systemClock;

  server.registerTool(
    'run',
    {
      title: 'Run a massgen team',
      description:
        "Starts several AI agents on the question in the background: they answer in parallel, see each other's answers, vote, and the most-voted answer's author writes the final answer. Returns a run_id at once; then call result (it waits) or status. Worth it for hard questions where independent attempts and review help; slow and costly for easy ones.",
      inputSchema: toolInputs.run,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    guarded(async (args) => {
      const run = await runs.start({
        question: args.question,
        ...(args.config ? { config: args.config } : {}),
        ...(args.context_paths ? { contextPaths: args.context_paths } : {}),
        ...(args.attachments ? { attachments: args.attachments } : {}),
      });
      return json({
        run_id: run.id,
        phase: run.phase,
        config: run.configFile,
        next: `call result with run_id "${run.id}" (it waits up to timeout_seconds), or status to watch it`,
      });
    }),
  );

  server.registerTool(
    'status',
    {
      title: 'Status of a massgen run',
      description:
        "Where a run is: phase (queued, starting, coordinating, presenting, finished), round, each agent's answers and votes so far, and the cost. With wait_seconds it waits (sending progress notifications) until the run ends or the time passes.",
      inputSchema: toolInputs.status,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (args, extra) => {
      const run = runs.get(args.run_id);
      await runs.wait(run, (args.wait_seconds ?? 0) * 1000, extra.signal, progressSender(extra));
      return json(runStatus(run, clock.now()));
    }),
  );

  server.registerTool(
    'result',
    {
      title: 'Result of a massgen run',
      description: `Waits up to timeout_seconds (default ${DEFAULT_RESULT_WAIT_SECONDS}) for the run to end, then returns the final answer, the winner, the votes, the log folder and the deliverable files. If the run is still going, returns done: false with its status: call result again.`,
      inputSchema: toolInputs.result,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (args, extra) => {
      const run = runs.get(args.run_id);
      const seconds = args.timeout_seconds ?? DEFAULT_RESULT_WAIT_SECONDS;
      await runs.wait(run, seconds * 1000, extra.signal, progressSender(extra));
      if (!run.finished)
        return json({ ...runStatus(run, clock.now()), hint: 'still running: call result again' });
      return json(await runResult(run, clock.now()));
    }),
  );

  server.registerTool(
    'cancel',
    {
      title: 'Cancel a massgen run',
      description:
        "Stops a run: its agents' model requests are aborted; its logs are kept. Returns its status.",
      inputSchema: toolInputs.cancel,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    guarded(async (args, extra) => {
      const run = runs.cancel(args.run_id);
      // A moment for the run to wind down, so the answer says "cancelled" rather than "coordinating".
      await runs.wait(run, 10_000, extra.signal);
      return json(runStatus(run, clock.now()));
    }),
  );

  server.registerTool(
    'list_runs',
    {
      title: 'List massgen runs',
      description: 'The runs this server knows (running, queued and recently finished), newest first.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async () => json({ runs: runs.list().map(runLine), limits: runs.limits })),
  );

  server.registerTool(
    'list_examples',
    {
      title: 'List bundled team configs',
      description:
        'The example team configs bundled with massgen (name and description): pass a name as config to run, or copy one with `massgen --example NAME > team.yaml` and edit it.',
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async () =>
      json({ examples: listExamples().map((e) => ({ name: e.name, description: e.description })) }),
    ),
  );

  server.registerTool(
    'validate_config',
    {
      title: 'Validate a massgen config',
      description:
        'Checks a team config without running it: schema errors (with line numbers and hints), unset API keys and other problems, and the agents it defines.',
      inputSchema: toolInputs.validate_config,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(async (args) => {
      const report = await validateConfig(runs.resolveConfig(args.config), {
        cwd: options.cwd,
        env: options.env,
      });
      const line = (d: (typeof report.errors)[number]) => ({
        message: d.message,
        ...(d.path ? { path: d.path } : {}),
        ...(d.line === undefined ? {} : { line: d.line }),
        ...(d.hint ? { hint: d.hint } : {}),
      });
      return json({
        file: report.file,
        valid: report.valid,
        errors: report.errors.map(line),
        warnings: report.warnings.map(line),
        agents: report.agents,
      });
    }),
  );
}
