/** Starting `massgen worker` and `massgen batch --queue` in the queue e2e tests (batch-queue, subagents-queue). */
import { makeWorkdir, startCli, waitFor, type RunningCli } from './cli-harness.js';

/**
 * Starts `massgen worker` on `queue` in a folder of its own; resolves once it takes runs, with its name
 * (`host:pid`). The process is pushed to `children`, for the test's cleanup.
 */
export async function startWorkerCli(
  options: { redisUrl: string; queue: string; env: Record<string, string>; children: RunningCli[] },
  args: string[] = [],
): Promise<{ cli: RunningCli; name: string; cwd: string }> {
  const cwd = makeWorkdir();
  const cli = startCli(['worker', '--queue', options.redisUrl, '--queue-name', options.queue, ...args], {
    cwd,
    env: options.env,
    timeoutMs: 240_000,
  });
  options.children.push(cli);
  await waitFor(
    () => /massgen worker (\S+): taking runs/.test(cli.stdout) || cli.child.exitCode !== null,
    60_000,
    'a worker to start',
  );
  const name = /massgen worker (\S+): taking runs/.exec(cli.stdout)?.[1];
  if (!name) throw new Error(`the worker did not start: ${cli.stderr}`);
  return { cli, name, cwd };
}

/** `massgen batch` of `q.jsonl` with `team.yaml` into `r.jsonl`, on `queue` at `redisUrl`. */
export function batchOnQueueArgs(redisUrl: string, queue: string, args: string[] = []): string[] {
  return [
    'batch',
    '--config',
    'team.yaml',
    '--input',
    'q.jsonl',
    '--output',
    'r.jsonl',
    '--queue',
    redisUrl,
    '--queue-name',
    queue,
    ...args,
  ];
}
