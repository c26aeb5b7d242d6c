// `npm run demo`: the real massgen CLI, end to end, against a local *scripted* OpenAI-compatible
// server — so you can watch a three-agent run (answers, an update, votes, the final presentation)
// without any API key. The models are fake; everything else (HTTP, SSE, the AI SDK, the
// orchestrator, the logs) is the real code path.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAIServer } from '../dist/testing/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const answers = {
  Ada: 'Water boils at 100 °C at sea level (1 atm).',
  Grace:
    'At standard atmospheric pressure (1 atm, sea level) water boils at 100 °C (212 °F); the boiling point drops at altitude, about 1 °C per 300 m.',
  Linus: 'Roughly 100 degrees Celsius.',
};

const server = await startFakeOpenAIServer();
server.setHandler((body) => {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const who = Object.keys(answers).find((name) => system.includes(name)) ?? 'Ada';
  const tools = (body.tools ?? []).map((t) => t.function.name);
  if (tools.length === 0) {
    return {
      text: `${answers.Grace}\n\n(Presented by ${who}, after reading every answer and the votes.)`,
      chunkSize: 8,
      delayMs: 20,
    };
  }
  if (
    !tools.includes('vote') ||
    (who === 'Grace' && !JSON.stringify(body.messages).includes('about 1 °C per 300 m'))
  ) {
    return {
      text: `${who}: let me work this out… `,
      chunkSize: 6,
      delayMs: who === 'Grace' ? 150 : 50,
      toolCalls: [{ name: 'new_answer', arguments: { content: answers[who] } }],
    };
  }
  // Vote for Grace's answer (agent2) once it exists; until then for the best one offered.
  const offered = body.tools.find((t) => t.function.name === 'vote').function.parameters.properties.agent_id
    .enum;
  const target = offered.includes('agent2') ? 'agent2' : offered[0];
  const reason = target === 'agent2' ? 'complete: pressure, both units and altitude' : 'correct so far';
  return {
    text: `${who}: comparing the answers… `,
    chunkSize: 6,
    delayMs: 60,
    toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason } }],
  };
});

const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-demo-'));
const config = path.join(cwd, 'demo.yaml');
writeFileSync(
  config,
  ['Ada', 'Grace', 'Linus']
    .map(
      (name, i) =>
        `${i === 0 ? 'agents:\n' : ''}  - id: ${name.toLowerCase()}\n    backend: { type: chatcompletion, model: scripted-${name.toLowerCase()}, base_url: "${server.url}" }\n    system_message: You are ${name}.\n`,
    )
    .join(''),
);
console.log(`Scripted demo server on ${server.url} — config ${config}\n`);
const child = spawn(
  process.execPath,
  [path.join(root, 'bin', 'massgen.js'), '--config', config, 'At what temperature does water boil?'],
  {
    cwd,
    stdio: 'inherit',
  },
);
child.on('exit', async (code) => {
  await server.close();
  process.exit(code ?? 1);
});
