// `npm run bench:batch`: `massgen batch` throughput in process and on a Redis queue with 1, 2 and 4
// `massgen worker` processes (4 runs at once each), and the queue's overhead per run. Agents are
// scripted: two per team, on the fake OpenAI-compatible server in a process of its own
// (bench/fake-provider.mjs). Two pacings: replies at once (every run is CPU work on this machine, so
// this is its ceiling) and 50 ms before each reply (runs wait on the "model", as real ones do).
// Queue overhead per run = the producer's wall time from adding the job to its result (BullMQ's
// "completed" event) minus the worker's own time on the job (config, agents, run): what running on the
// queue adds over running in process, measured one run at a time. Target: p99 ≤ 20 ms.
// Needs redis-server (Debian's package): without it the queue part is skipped, saying so.
// BENCH_QUICK=1 runs a small size. Results: bench/results/batch.json and .md.
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runBatch } from '../dist/index.js';
import { randomBytes } from 'node:crypto';
import {
  createJobSigner,
  parseQueueLocation,
  QueueClient,
  queueExecutor,
  readConfigPayload,
} from '../dist/queue/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.join(root, '..', 'bin', 'massgen.js');
const quick = process.env.BENCH_QUICK === '1';
const PACINGS = [
  { name: 'replies at once', settings: {}, runs: quick ? 40 : 400 },
  { name: '50 ms per reply', settings: { firstDelayMs: 50 }, runs: quick ? 20 : 200 },
];
const SEQUENTIAL = quick ? 20 : 200;
const WORKER_COUNTS = quick ? [1, 2] : [1, 2, 4];
const PER_WORKER = 4;
// The batch signs its jobs and the workers check them, as in real use (signing is part of the cost).
const QUEUE_SECRET = randomBytes(32).toString('hex');
const signer = createJobSigner(QUEUE_SECRET, 'bench');
const REDIS = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => existsSync(file));

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (value) => +value.toFixed(1);

const provider = fork(path.join(root, 'fake-provider.mjs'));
await new Promise((resolve) => provider.once('message', resolve)); // its hello
/** Sets the provider's pacing (`{}`: every reply at once); resolves with its URL. */
const pace = (settings) =>
  new Promise((resolve) => {
    provider.once('message', (m) => resolve(m.url));
    provider.send(settings);
  });
const providerUrl = await pace({});

const work = mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-batch-'));
const agent = (id) =>
  `  - { id: ${id}, backend: { type: chatcompletion, model: bench, base_url: "${providerUrl}" }, system_message: "You are agent ${id}." }`;
writeFileSync(
  path.join(work, 'team.yaml'),
  `agents:\n${agent('a')}\n${agent('b')}\nui: { logging_enabled: false }\n`,
);
for (const { runs } of PACINGS) {
  const lines = Array.from({ length: runs }, (_, i) =>
    JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?` }),
  );
  writeFileSync(path.join(work, `q${runs}.jsonl`), `${lines.join('\n')}\n`);
}

let batches = 0;
/** One batch of `runs` questions; resolves with runs per second. */
async function batch(runs, executor, concurrency) {
  const output = path.join(work, `out-${++batches}.jsonl`);
  const started = performance.now();
  const summary = await runBatch({
    cwd: work,
    env: {},
    config: 'team.yaml',
    input: `q${runs}.jsonl`,
    output,
    logging: false,
    concurrency,
    ...(executor ? { executor } : {}),
  });
  const seconds = (performance.now() - started) / 1000;
  if (summary.done !== runs || summary.failed > 0)
    throw new Error(`batch ${batches}: ${summary.done} done, ${summary.failed} failed`);
  return +(runs / seconds).toFixed(1);
}

const report = {
  date: new Date().toISOString(),
  quick,
  node: process.versions.node,
  cpus: os.cpus().length,
  note: 'runs per second; two scripted agents per run (fake provider in its own process), logging off',
  throughput: Object.fromEntries(PACINGS.map((p) => [p.name, { runs: p.runs }])),
  overheadMs: null,
  skipped: null,
};

// 1. In process: the baseline, as many runs at once as 1 and 4 workers take.
await batch(PACINGS[0].runs, undefined, 8); // warm-up: module loading and the JIT
for (const pacing of PACINGS) {
  await pace(pacing.settings);
  for (const concurrency of [PER_WORKER, PER_WORKER * 4]) {
    const where = `in process, ${concurrency} at once`;
    report.throughput[pacing.name][where] = await batch(pacing.runs, undefined, concurrency);
    console.log(`${pacing.name}: ${where}: ${report.throughput[pacing.name][where]} runs/s`);
  }
}

// 2. On the queue.
async function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function startRedis(port) {
  const child = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
  });
}

function startWorker(url, queue) {
  const child = spawn(
    process.execPath,
    [CLI, 'worker', '--queue', url, '--queue-name', queue, '--concurrency', String(PER_WORKER), '--no-logs'],
    {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: work, MASSGEN_QUEUE_SECRET: QUEUE_SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('taking runs')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`massgen worker exited (${code}): ${out}`)));
  });
}

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGKILL');
  });

if (!REDIS) {
  report.skipped =
    'redis-server is not installed (Debian: apt-get install redis-server): queue figures skipped';
  console.log(`skip  queue: ${report.skipped}`);
} else {
  const port = await freePort();
  const redis = await startRedis(port);
  const url = `redis://127.0.0.1:${port}`;
  try {
    for (const count of WORKER_COUNTS) {
      const queue = `bench-${count}`;
      const workers = await Promise.all(Array.from({ length: count }, () => startWorker(url, queue)));
      try {
        for (const pacing of PACINGS) {
          await pace(pacing.settings);
          const client = await QueueClient.connect(parseQueueLocation(url, queue), { events: true, signer });
          const output = path.join(work, `${queue}-${pacing.runs}.jsonl`);
          const executor = queueExecutor({ client, cwd: work, env: {}, output, logging: false });
          const where = `queue, ${count} worker${count === 1 ? '' : 's'} × ${PER_WORKER}`;
          report.throughput[pacing.name][where] = await batch(pacing.runs, executor, pacing.runs);
          await executor.close();
          console.log(`${pacing.name}: ${where}: ${report.throughput[pacing.name][where]} runs/s`);
        }
      } finally {
        await Promise.all(workers.map(stop));
      }
    }

    // Overhead: one run at a time through one worker, replies at once.
    await pace({});
    const queue = 'bench-overhead';
    const worker = await startWorker(url, queue);
    try {
      const client = await QueueClient.connect(parseQueueLocation(url, queue), { events: true, signer });
      const payload = await readConfigPayload(path.join(work, 'team.yaml'), {}, work);
      const added = [];
      const workMs = [];
      for (let i = 0; i < SEQUENTIAL + 5; i++) {
        const data = {
          v: 1,
          question: `What is ${i} times 2?`,
          config: { name: payload.name, text: payload.text },
          logging: false,
        };
        const jobId = `o-${i}`;
        const started = performance.now();
        await client.add(jobId, data, { keepCompleted: true });
        const finish = await client.finished(jobId);
        const elapsed = performance.now() - started;
        if (finish.kind !== 'completed') throw new Error(`overhead run ${i}: ${finish.kind}`);
        await client.forget(jobId);
        if (i < 5) continue; // warm-up
        workMs.push(finish.value.workMs);
        added.push(elapsed - finish.value.workMs);
      }
      await client.close();
      report.overheadMs = {
        runs: SEQUENTIAL,
        addedP50: ms(percentile(added, 50)),
        addedP99: ms(percentile(added, 99)),
        workerP50: ms(percentile(workMs, 50)),
      };
      console.log('queue overhead per run (ms):', report.overheadMs);
    } finally {
      await stop(worker);
    }
  } finally {
    await stop(redis);
  }
}

provider.disconnect();
rmSync(work, { recursive: true, force: true });

mkdirSync(path.join(root, 'results'), { recursive: true });
writeFileSync(path.join(root, 'results', 'batch.json'), `${JSON.stringify(report, null, 2)}\n`);
const places = [
  ...new Set(PACINGS.flatMap((p) => Object.keys(report.throughput[p.name]).filter((k) => k !== 'runs'))),
];
const overhead = report.overheadMs;
const md = [
  `massgen batch: runs per second, two scripted agents per run (${report.cpus} cores, Node ${report.node})${quick ? ' (quick)' : ''}.`,
  '',
  `| where | ${PACINGS.map((p) => `${p.name} (${p.runs} runs)`).join(' | ')} |`,
  `| --- | ${PACINGS.map(() => '---:').join(' | ')} |`,
  ...places.map(
    (where) => `| ${where} | ${PACINGS.map((p) => report.throughput[p.name][where] ?? '—').join(' | ')} |`,
  ),
  '',
  overhead
    ? `Queue overhead per run, one at a time (${overhead.runs} runs): p50 ${overhead.addedP50} ms, p99 ${overhead.addedP99} ms (target ≤ 20 ms); the run itself on the worker: p50 ${overhead.workerP50} ms.`
    : `Queue: ${report.skipped}`,
].join('\n');
writeFileSync(path.join(root, 'results', 'batch.md'), `${md}\n`);
console.log('\nwritten: bench/results/batch.json, batch.md');
