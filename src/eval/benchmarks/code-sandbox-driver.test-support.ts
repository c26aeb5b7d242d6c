/**
 * Runs programs in HumanEval's sandbox and prints how each ended, as JSON: the tests start it under
 * `setpriv` to check the sandbox holds for an unprivileged user as it does for root.
 * argv[2]: `{"timeoutMs": number, "programs": string[]}`.
 */
import { createCodeSandbox } from './code-sandbox.js';

const input = JSON.parse(process.argv[2] ?? '{}') as { timeoutMs: number; programs: string[] };
const sandbox = createCodeSandbox(process.env, { timeoutMs: input.timeoutMs });
const runs = [];
for (const program of input.programs) runs.push(await sandbox.run(program));
process.stdout.write(`${JSON.stringify(runs)}\n`);
