// `npm run bench:serve`: massgen serve under load, on loopback only. 200 concurrent chat completions,
// each a two-agent run whose agents talk to a local fake OpenAI-compatible server (scripted, instant).
// The server is the real CLI (`massgen serve`) in its own process; this process is the clients and the
// fake provider, so the server's figures are its own.
// "Added latency" is what the server adds to a run: the client's wall time minus the run's own
// duration (reported in the response's `massgen.duration_ms`) — HTTP, parsing, admission, config
// loading, building the agents and the response. A second pass with the default limits (4 running,
// 16 waiting) checks that the excess is refused fast with 429; a third sends 1,000 at once to a server
// running 16 and queueing the rest, for the added latency and the memory of a long queue.
// Results: bench/results/serve.json, .md.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { convergingTeam, startFakeOpenAIServer } from '../dist/testing/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const CONCURRENT = 200;
/** The queued pass: this many requests at once, against 16 running. */
const QUEUED = 1000;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (value) => +value.toFixed(1);

const fake = await startFakeOpenAIServer();
fake.setHandler(convergingTeam({ final: 'Four.' }));
const cwd = mkdtempSync(path.join(os.tmpdir(), 'massgen-bench-serve-'));
const backend = `{ type: chatcompletion, model: bench, base_url: "${fake.url}" }`;
writeFileSync(
  path.join(cwd, 'team.yaml'),
  `agents:\n  - { id: a, backend: ${backend} }\n  - { id: b, backend: ${backend} }\n`,
);

/** The key the server is started with (it requires one on every address). */
const API_KEY = 'bench-key';

/** `Server-Timing: queue;dur=…, run;dur=…, total;dur=…` as numbers. */
const timingOf = (header) =>
  Object.fromEntries([...(header ?? '').matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));

async function post(url) {
  const started = performance.now();
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model: 'massgen', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
  });
  const body = await response.json();
  const wallMs = performance.now() - started;
  const timing = timingOf(response.headers.get('server-timing'));
  return { status: response.status, wallMs, timing, answer: body.choices?.[0]?.message?.content };
}

/** CPU seconds a process used so far (Linux: utime + stime from /proc). */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** Starts `massgen serve` in a child process; resolves with its URL once it listens. */
function startServer(limits) {
  const args = ['serve', '--config', 'team.yaml', '--port', '0', '--no-logs', '--api-key', API_KEY];
  args.push('--max-concurrent', String(limits.maxConcurrent), '--max-queue', String(limits.maxQueue));
  const child = spawn(process.execPath, [path.join(root, '..', 'bin', 'massgen.js'), ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      out += text;
      const url = /massgen serve: (http:\/\/\S+\/v1)/.exec(out)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`massgen serve exited (${code}): ${out}`)));
  });
}

/** The child's peak resident memory so far (Linux: VmHWM). */
const peakRssMiB = (pid) => {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? +(Number(kb) / 1024).toFixed(1) : null;
};

async function pass(limits, requests = CONCURRENT) {
  const server = await startServer(limits);
  try {
    // No warm-up on purpose: all requests reach the server at once, on fresh connections.
    const cpuBefore = { server: cpuSeconds(server.child.pid), clients: process.cpuUsage() };
    const started = performance.now();
    const replies = await Promise.all(Array.from({ length: requests }, () => post(server.url)));
    const totalMs = performance.now() - started;
    const clientCpu = process.cpuUsage(cpuBefore.clients);
    const cpu = {
      serverSeconds: +(cpuSeconds(server.child.pid) - cpuBefore.server).toFixed(2),
      clientsAndFakeProviderSeconds: +((clientCpu.user + clientCpu.system) / 1e6).toFixed(2),
    };
    const peakRss = peakRssMiB(server.child.pid);
    const ok = replies.filter((r) => r.status === 200);
    const wrong = ok.filter((r) => r.answer !== 'Four.').length;
    if (wrong > 0) throw new Error(`${wrong} answers were not the scripted one`);
    const refused = replies.filter((r) => r.status === 429);
    const added = ok.map((r) => r.timing.total - r.timing.queue - r.timing.run);
    const runMs = ok.map((r) => r.timing.run);
    const queueMs = ok.map((r) => r.timing.queue);
    const wall = ok.map((r) => r.wallMs);
    return {
      limits,
      requests,
      completed: ok.length,
      refused429: refused.length,
      otherStatus: replies.length - ok.length - refused.length,
      totalMs: ms(totalMs),
      throughputPerSecond: +(ok.length / (totalMs / 1000)).toFixed(1),
      wallMs: { p50: ms(percentile(wall, 50)), p99: ms(percentile(wall, 99)) },
      queueMs: { p50: ms(percentile(queueMs, 50)), p99: ms(percentile(queueMs, 99)) },
      runMs: { p50: ms(percentile(runMs, 50)), p99: ms(percentile(runMs, 99)) },
      addedMs: { p50: ms(percentile(added, 50)), p99: ms(percentile(added, 99)) },
      cpu,
      refusalMs:
        refused.length > 0
          ? {
              p99: ms(
                percentile(
                  refused.map((r) => r.wallMs),
                  99,
                ),
              ),
            }
          : null,
      serverPeakRssMiB: peakRss,
    };
  } finally {
    server.child.kill('SIGTERM');
  }
}

const all = await pass({ maxConcurrent: CONCURRENT, maxQueue: 0 });
console.log('all at once:', all);
const limited = await pass({ maxConcurrent: 4, maxQueue: 16 });
console.log('default limits:', limited);
const queued = await pass({ maxConcurrent: 16, maxQueue: QUEUED }, QUEUED);
console.log(`${QUEUED} queued:`, queued);
await fake.close();
rmSync(cwd, { recursive: true, force: true });

const report = {
  date: new Date().toISOString(),
  node: process.versions.node,
  cpus: os.cpus().length,
  note: 'added = the server’s own time for a request (Server-Timing total − queue − run): parsing, config, agents, response; agents on a local scripted server in the bench process; logging off',
  passes: [all, limited, queued],
};
mkdirSync(path.join(root, 'results'), { recursive: true });
writeFileSync(path.join(root, 'results', 'serve.json'), `${JSON.stringify(report, null, 2)}\n`);
const row = (name, r) =>
  `| ${name} | ${r.requests} | ${r.completed} | ${r.refused429} | ${r.throughputPerSecond} | ${r.wallMs.p50} / ${r.wallMs.p99} | ${r.queueMs.p50} / ${r.queueMs.p99} | ${r.runMs.p50} / ${r.runMs.p99} | ${r.addedMs.p50} / ${r.addedMs.p99} | ${r.refusalMs?.p99 ?? '—'} | ${r.cpu.serverSeconds} / ${r.cpu.clientsAndFakeProviderSeconds} | ${r.serverPeakRssMiB} |`;
const md = [
  `massgen serve, ${CONCURRENT} and ${QUEUED} concurrent requests, two-agent runs on a loopback scripted server (${report.cpus} cores, Node ${report.node}).`,
  '',
  '| pass | requests | 200 | 429 | runs/s | client wall ms p50 / p99 | queued ms p50 / p99 | run ms p50 / p99 | added ms p50 / p99 | 429 ms p99 | CPU s server / bench | server peak RSS MiB |',
  '| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | ---: | --- | ---: |',
  row(`all at once (${CONCURRENT} slots)`, all),
  row('default limits (4 + 16 queued)', limited),
  row(`16 running, ${QUEUED - 16} queued`, queued),
].join('\n');
writeFileSync(path.join(root, 'results', 'serve.md'), `${md}\n`);
console.log('\nwritten: bench/results/serve.json, serve.md');
