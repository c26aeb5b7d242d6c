// `npm run bench`: coordination overhead with instant scripted models, so what is measured is the
// engine itself (scheduling, prompts, events, vote bookkeeping). Results go to bench/results/.
// Targets are recorded beside the measurements; they are checked here, never in unit tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Orchestrator } from '../dist/index.js';
import { ScriptedBackend } from '../dist/testing/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));

/** Answer when nothing is votable, otherwise vote for agent1; present when asked. */
function policyBackend(id) {
  const decide = (request) => {
    if (!request.tools.some((t) => t.name === 'new_answer')) return { text: `final from ${id}` };
    const vote = request.tools.find((t) => t.name === 'vote');
    if (!vote)
      return {
        toolCalls: [{ name: 'new_answer', arguments: { content: `answer from ${id} ${'x'.repeat(2000)}` } }],
      };
    const offered = vote.parameters.properties.agent_id.enum;
    return {
      toolCalls: [
        {
          name: 'vote',
          arguments: { agent_id: offered.includes('agent1') ? 'agent1' : offered[0], reason: 'ok' },
        },
      ],
    };
  };
  return new ScriptedBackend([decide], { repeatLast: true, model: id });
}

async function once(agents) {
  const orchestrator = new Orchestrator({
    agents: Array.from({ length: agents }, (_, i) => ({
      id: `agent_${i}`,
      backend: policyBackend(`agent_${i}`),
    })),
  });
  let events = 0;
  let status = '';
  for await (const event of orchestrator.run('benchmark question')) {
    events++;
    if (event.type === 'run.finished') status = event.status;
  }
  if (status !== 'completed') throw new Error(`run ended ${status}`);
  return events;
}

const results = [];
for (const agents of [2, 3, 5, 10]) {
  for (let i = 0; i < 3; i++) await once(agents); // warm-up
  const runs = 30;
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  let events = 0;
  for (let i = 0; i < runs; i++) events += await once(agents);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const heapAfter = process.memoryUsage().heapUsed;
  results.push({
    agents,
    runs,
    msPerRun: +(ms / runs).toFixed(2),
    eventsPerRun: Math.round(events / runs),
    eventsPerSecond: Math.round(events / (ms / 1000)),
    heapGrowthMB: +((heapAfter - heapBefore) / 1024 / 1024).toFixed(1),
  });
  console.log(results.at(-1));
}

// Target: the engine adds well under 50 ms per run for 5 agents (models dominate real runs).
const target = { agents: 5, maxMsPerRun: 50 };
const measured = results.find((r) => r.agents === target.agents);
const report = {
  date: new Date().toISOString(),
  node: process.versions.node,
  cpus: (await import('node:os')).cpus().length,
  target,
  targetMet: measured ? measured.msPerRun <= target.maxMsPerRun : false,
  results,
};
mkdirSync(path.join(root, 'results'), { recursive: true });
const out = path.join(root, 'results', 'coordination.json');
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwritten ${out} — target ${report.targetMet ? 'met' : 'MISSED'}`);
