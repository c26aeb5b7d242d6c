// `npm run test:stress [-- vitest args]`: the suite (or the tests named) with CPU hogs beside it, as on
// a busy 2-core CI machine, and with the clock a year ahead when faketime is installed (as `.ci/run`'s
// date pass does). A change to timing-sensitive code lands only after three passes in a row.
//
//   npm run test:stress                                  # the whole suite, once
//   STRESS_RUNS=3 npm run test:stress                    # three passes in a row (stops at the first failure)
//   STRESS_HOGS=4 npm run test:stress -- test/e2e/steering-tmux.test.ts
//
// Each hog is a process spinning on one core; by default one per core. The build runs first, as
// `npm test` does.
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';

const args = process.argv.slice(2);
const hogCount = Number(process.env.STRESS_HOGS ?? os.availableParallelism());
const runs = Number(process.env.STRESS_RUNS ?? 1);
const fakeTime = process.env.STRESS_FAKETIME !== '0' && spawnSync('faketime', ['--version']).status === 0;

const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

// Busy loops in separate processes, at normal priority: the suite competes with them for every core.
const hogs = Array.from({ length: hogCount }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

console.log(
  `== ${hogCount} CPU hogs beside the suite${fakeTime ? ', the clock a year ahead (faketime)' : ''}; ${runs} run(s)`,
);
let status = 0;
for (let run = 1; run <= runs && status === 0; run++) {
  const started = Date.now();
  const vitest = ['npx', 'vitest', 'run', '--reporter=dot', ...args];
  const command = fakeTime ? ['faketime', '-f', '+365d', ...vitest] : vitest;
  const result = spawnSync(command[0], command.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, ...(fakeTime ? { FAKETIME_DONT_FAKE_MONOTONIC: '1' } : {}) },
  });
  status = result.status ?? 1;
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(`== stress run ${run} of ${runs}: ${status === 0 ? 'passed' : 'FAILED'} in ${minutes} min`);
}
stopHogs();
process.exit(status);
