/**
 * Runs commands through `execute_command` in the OS sandbox and prints their results as JSON: the
 * sandbox tests start it as an unprivileged user (`setpriv`) to check what holds for such a user too.
 * Input (argv[2], JSON): {@link DriverInput}.
 */
import {
  createCommandToolProvider,
  sandboxSupport,
  type SandboxLayout,
} from '../../src/tools/execute-command/index.js';
import type { ToolResult } from '../../src/types/tool.js';

export interface DriverInput {
  layout: SandboxLayout;
  env: Record<string, string>;
  timeoutMs: number;
  maxProcesses: number;
  maxFileSizeBytes: number;
  /** `sandbox.memory`, in bytes; default the provider's. */
  maxMemoryBytes?: number;
  commands: string[];
}

/** Runs `input.commands` one after the other in a sandbox made from `input`. */
export async function runInSandbox(input: DriverInput): Promise<ToolResult[]> {
  const support = sandboxSupport(input.env.PATH);
  if (!support.ok) throw new Error(`${support.reason} (${support.hint})`);
  const provider = createCommandToolProvider({
    workspace: input.layout.workspace,
    timeoutMs: input.timeoutMs,
    maxOutputChars: 5_000,
    env: input.env,
    mode: 'sandbox',
    maxProcesses: input.maxProcesses,
    maxFileSizeBytes: input.maxFileSizeBytes,
    ...(input.maxMemoryBytes === undefined ? {} : { maxMemoryBytes: input.maxMemoryBytes }),
    sandbox: { bwrap: support.bwrap, layout: () => input.layout },
  });
  const results: ToolResult[] = [];
  try {
    for (const command of input.commands) {
      const signal = new AbortController().signal;
      results.push(
        await provider.call('execute_command', { command }, { agentId: 'a', phase: 'coordination', signal }),
      );
    }
  } finally {
    await provider.close();
  }
  return results;
}

if (process.argv[1]?.endsWith('sandbox-driver.ts')) {
  const input = JSON.parse(process.argv[2] ?? '{}') as DriverInput;
  runInSandbox(input).then(
    (results) => process.stdout.write(JSON.stringify(results)),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
