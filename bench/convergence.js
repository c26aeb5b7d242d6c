// `npm run bench:convergence`: how coordination strategies converge, on scripted personas whose
// behaviour is controlled (no real model). Each persona reads the voting bar from its instructions and
// the quality of the answers it sees (written into the answers as `quality=0.NN`): it votes for the best
// visible answer when that clears its bar, otherwise it submits an improvement. Every reply reports
// token usage from the size of its request and reply, so tokens and context per agent are comparable.
// Under `checklist_gated` the persona scores every answer it sees with `submit_checklist` (its quality
// × 10 per criterion, give or take a point) and follows the gate's verdict instead of a bar.
// Results: bench/results/convergence.json and convergence.md. `--quick` runs a reduced grid (CI).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Orchestrator } from '../dist/index.js';
import { ScriptedBackend } from '../dist/testing/index.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');

/** The bar each sensitivity sets, as the persona understands it. */
const BARS = { lenient: 0.55, balanced: 0.75, strict: 0.9 };

/** A small seeded generator, so every run of the study is the same. */
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const textOf = (request) => request.messages.map((m) => m.content).join('\n');
const tokens = (chars) => Math.ceil(chars / 4);

function persona(index, random) {
  // Skill: how good a first answer is, and how much a revision adds.
  const skill = 0.35 + random() * 0.35;
  const step = 0.08 + random() * 0.12;
  const decide = (request) => {
    const prompt = textOf(request);
    const usage = (reply) => ({ inputTokens: tokens(prompt.length), outputTokens: tokens(reply.length) });
    const names = request.tools.map((t) => t.name);
    const seenQuality = () =>
      [...prompt.matchAll(/<(agent\d+)>\nquality=(\d\.\d+)/g)].map((m) => ({
        id: m[1],
        quality: Number(m[2]),
      }));
    if (names.includes('submit_checklist')) {
      const items = request.tools.find((t) => t.name === 'submit_checklist').parameters.properties.evaluations
        .items.properties;
      const quality = new Map(seenQuality().map((s) => [s.id, s.quality]));
      const args = {
        evaluations: items.agent_id.enum.map((id) => ({
          agent_id: id,
          scores: Object.fromEntries(
            items.scores.required.map((c) => {
              const score = Math.round((quality.get(id) ?? 0) * 10 + (random() * 2 - 1));
              return [
                c,
                {
                  score: Math.max(0, Math.min(10, score)),
                  reason: `${c} looks ${score >= 7 ? 'fine' : 'weak'}`,
                },
              ];
            }),
          ),
        })),
      };
      return {
        toolCalls: [{ name: 'submit_checklist', arguments: args }],
        usage: usage(JSON.stringify(args)),
      };
    }
    const answerTool = request.tools.find((t) => t.name === 'new_answer');
    if (answerTool?.parameters.properties.improvement_plan) {
      const best = Math.max(skill, ...seenQuality().map((s) => s.quality));
      const quality = Math.min(0.99, best + step);
      const content = `quality=${quality.toFixed(2)}\nAnswer of persona ${index}. ${'detail '.repeat(120)}`;
      const args = { improvement_plan: 'raise the criteria that fell short', content };
      return { toolCalls: [{ name: 'new_answer', arguments: args }], usage: usage(JSON.stringify(args)) };
    }
    if (!names.includes('vote') && !names.includes('new_answer')) {
      const text = `final answer by persona ${index}`;
      return { text, usage: usage(text) };
    }
    const bar = BARS[/VOTING BAR \((\w+)\)/.exec(prompt)?.[1] ?? 'lenient'] ?? 0;
    const seen = [...prompt.matchAll(/<(agent\d+)>\nquality=(\d\.\d+)/g)].map((m) => ({
      id: m[1],
      quality: Number(m[2]),
    }));
    const vote = request.tools.find((t) => t.name === 'vote');
    const votable = vote ? vote.parameters.properties.agent_id.enum : [];
    const candidates = seen.filter((s) => votable.includes(s.id)).sort((a, b) => b.quality - a.quality);
    const best = candidates[0];
    if (best && (best.quality >= bar || !names.includes('new_answer'))) {
      const args = { agent_id: best.id, reason: 'clears the bar' };
      return { toolCalls: [{ name: 'vote', arguments: args }], usage: usage(JSON.stringify(args)) };
    }
    if (!names.includes('new_answer')) {
      const args = { agent_id: votable[0], reason: 'only choice' };
      return { toolCalls: [{ name: 'vote', arguments: args }], usage: usage(JSON.stringify(args)) };
    }
    const quality = Math.min(0.99, (best?.quality ?? skill) + (best ? step : 0));
    const content = `quality=${quality.toFixed(2)}\nAnswer of persona ${index}. ${'detail '.repeat(120)}`;
    return { toolCalls: [{ name: 'new_answer', arguments: { content } }], usage: usage(content) };
  };
  return new ScriptedBackend([decide], { repeatLast: true, model: 'persona' });
}

async function study(agents, settings, seed = 1) {
  const random = seeded(seed * 7919 + agents);
  let clockRandom = seeded(seed);
  const orchestrator = new Orchestrator({
    agents: Array.from({ length: agents }, (_, i) => ({ id: `p${i + 1}`, backend: persona(i + 1, random) })),
    settings: { agentTurnTimeoutMs: 60_000, orchestratorTimeoutMs: 600_000, ...settings },
    clock: { now: () => Date.now(), random: () => clockRandom() },
  });
  const m = {
    steps: 0,
    turns: 0,
    /** The most coordination turns one agent took. */
    rounds: 0,
    answers: 0,
    inputTokens: 0,
    outputTokens: 0,
    wastedTokens: 0,
    maxPrompt: 0,
  };
  const stepTokens = new Map();
  const turnsOf = new Map();
  let status = '';
  let end = '';
  for await (const event of orchestrator.run('Write the best possible explanation of recursion.')) {
    if (event.type === 'agent.step.finished') {
      m.steps++;
      m.inputTokens += event.usage.inputTokens;
      m.outputTokens += event.usage.outputTokens;
      m.maxPrompt = Math.max(m.maxPrompt, event.usage.inputTokens);
      stepTokens.set(
        event.agentId,
        (stepTokens.get(event.agentId) ?? 0) + event.usage.inputTokens + event.usage.outputTokens,
      );
    } else if (event.type === 'agent.turn.started') {
      m.turns++;
      turnsOf.set(event.agentId, (turnsOf.get(event.agentId) ?? 0) + 1);
      m.rounds = Math.max(m.rounds, turnsOf.get(event.agentId));
      stepTokens.set(event.agentId, 0);
    } else if (event.type === 'agent.turn.finished' && event.outcome === 'aborted') {
      m.wastedTokens += stepTokens.get(event.agentId) ?? 0;
    } else if (event.type === 'vote.cast' && !event.counted) {
      m.wastedTokens += stepTokens.get(event.agentId) ?? 0;
    } else if (event.type === 'answer.submitted') m.answers++;
    else if (event.type === 'coordination.finished') end = event.reason;
    else if (event.type === 'run.finished') status = event.status;
  }
  const total = m.inputTokens + m.outputTokens;
  return { ...m, status, end, wastedShare: total === 0 ? 0 : m.wastedTokens / total };
}

const rows = [];
async function measure(group, label, agents, settings) {
  const result = await study(agents, settings);
  rows.push({ group, label, agents, ...result });
  console.log(
    `${group.padEnd(12)} ${label.padEnd(22)} ${String(agents).padStart(3)} agents: ${result.steps} calls, ${result.rounds} rounds, ${result.answers} answers (${(result.answers / agents).toFixed(1)}/agent), ` +
      `${result.inputTokens + result.outputTokens} tokens (${(result.wastedShare * 100).toFixed(1)}% wasted), ` +
      `max prompt ${result.maxPrompt} tokens, ${result.end}`,
  );
}

const sizes = quick ? [4, 16] : [4, 16, 64];
for (const sensitivity of ['lenient', 'balanced', 'strict', 'checklist_gated'])
  await measure('sensitivity', sensitivity, 4, {
    votingSensitivity: sensitivity,
    // The gate with the built-in `evaluation` criteria (no generation call), pass mark 7.
    ...(sensitivity === 'checklist_gated'
      ? { checklist: { criteria: null, preset: 'evaluation', threshold: 7 } }
      : {}),
  });
for (const consensus of ['all', 'majority']) await measure('consensus', consensus, 8, { consensus });
for (const onNewAnswer of ['inject', 'restart'])
  await measure('on_new_answer', onNewAnswer, 8, { onNewAnswer });
for (const agents of sizes) {
  for (const visibility of ['all', 'ring', 'random_k', 'islands']) {
    await measure('visibility', visibility, agents, {
      visibility,
      visibilityK: visibility === 'islands' ? 4 : 3,
    });
  }
}

mkdirSync(path.join(root, 'results'), { recursive: true });
const out = { date: new Date().toISOString(), node: process.version, quick, rows };
writeFileSync(path.join(root, 'results', 'convergence.json'), `${JSON.stringify(out, null, 2)}\n`);
const md = [
  '| group | setting | agents | model calls | rounds | answers | answers/agent | tokens | wasted | max prompt (tokens) | end |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ...rows.map(
    (r) =>
      `| ${r.group} | ${r.label} | ${r.agents} | ${r.steps} | ${r.rounds} | ${r.answers} | ${(r.answers / r.agents).toFixed(1)} | ${r.inputTokens + r.outputTokens} | ${(r.wastedShare * 100).toFixed(1)}% | ${r.maxPrompt} | ${r.end} |`,
  ),
].join('\n');
writeFileSync(path.join(root, 'results', 'convergence.md'), `${md}\n`);
console.log(`\nwritten: bench/results/convergence.json, convergence.md`);
if (rows.some((r) => r.status !== 'completed')) {
  console.error('a study run did not complete');
  process.exitCode = 1;
}
