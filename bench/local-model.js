// `npm run bench:local`: real local inference through massgen's `local` backend (node-llama-cpp),
// measuring tokens/s and time to first token per thread count. Uses ../shared/models/stories260K.gguf
// (or MASSGEN_BENCH_MODEL); without a model it says so and writes nothing. Results: bench/results/.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { disposeLocalModels, localBackend } from '../dist/backends/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const model =
  process.env.MASSGEN_BENCH_MODEL ?? path.resolve(root, '..', '..', 'shared', 'models', 'stories260K.gguf');
if (!existsSync(model)) {
  console.log(`local-model benchmark skipped: no model at ${model} (set MASSGEN_BENCH_MODEL)`);
  process.exit(0);
}

async function measure(threads, runs = 5, maxTokens = 256) {
  const backend = localBackend.create({
    type: 'local',
    model,
    maxTokens,
    providerOptions: {},
    local: { threads, modelDir: os.tmpdir(), hubEndpoint: 'http://127.0.0.1:9' },
  });
  const samples = [];
  for (let i = 0; i < runs + 1; i++) {
    const started = performance.now();
    let first = null;
    let tokens = 0;
    for await (const part of backend.stream({
      messages: [{ role: 'user', content: `Tell a story number ${i}.` }],
      tools: [],
      signal: new AbortController().signal,
    })) {
      if (part.type === 'text-delta' && first === null) first = performance.now() - started;
      if (part.type === 'finish') tokens = part.usage.outputTokens;
    }
    const seconds = (performance.now() - started) / 1000;
    if (i > 0) samples.push({ ttftMs: first ?? 0, tokensPerSecond: tokens / seconds }); // run 0 warms up
  }
  await disposeLocalModels();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    threads,
    medianTokensPerSecond: Math.round(median(samples.map((s) => s.tokensPerSecond))),
    medianTimeToFirstTokenMs: +median(samples.map((s) => s.ttftMs)).toFixed(1),
  };
}

const cores = os.availableParallelism();
const results = [];
for (const threads of [...new Set([1, 2, Math.min(4, cores)])].filter((t) => t <= Math.max(2, cores))) {
  results.push(await measure(threads));
  console.log(results.at(-1));
}
const best = results.reduce((a, b) => (b.medianTokensPerSecond > a.medianTokensPerSecond ? b : a));
const { defaultThreads } = await import('../dist/backends/index.js');
const report = {
  date: new Date().toISOString(),
  model: path.basename(model),
  cores,
  defaultThreads: defaultThreads(),
  fastest: best.threads,
  results,
};
mkdirSync(path.join(root, 'results'), { recursive: true });
writeFileSync(path.join(root, 'results', 'local-model.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `\nwritten bench/results/local-model.json — default threads ${report.defaultThreads}, fastest here ${best.threads}`,
);
