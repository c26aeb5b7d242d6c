// `npm run demo:tools`: agents with tools, end to end and without an API key. The models are
// scripted (a local OpenAI-compatible server decides which tools they call); everything else is real:
// the MCP reference servers from node_modules (server-everything over stdio, server-filesystem on a
// temp folder), a custom TypeScript tool (examples/tools/text_tools.ts), and planning mode — the
// file write is only planned during coordination and carried out by the final presenter — and an
// agent workspace, whose files may be written while planning.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAIServer } from '../dist/testing/index.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const filesystem = path.join(root, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
if (!existsSync(everything) || !existsSync(filesystem)) {
  console.error('massgen demo:tools needs the dev dependencies: run `npm ci` first.');
  process.exit(1);
}

const cwd = mkdtempSync(path.join(tmpdir(), 'massgen-demo-tools-'));
const notes = path.join(cwd, 'notes');
mkdirSync(notes);
const report = path.join(notes, 'report.md');
const text = 'Many agents attack one task in parallel, read each other, and vote.';

// What each scripted agent does during coordination, one tool call per model call, then its answer.
const plans = {
  Ada: [
    { name: 'mcp__everything__get-sum', arguments: { a: 19, b: 23 } },
    { name: 'mcp__files__write_file', arguments: { path: report, content: `# Report\n\n19 + 23 = 42\n` } },
  ],
  Grace: [
    { name: 'word_count', arguments: { text } },
    // Grace has a workspace (.massgen/workspaces/grace/): writing there is allowed even while planning.
    { name: 'write_file', arguments: { path: 'summary.txt', content: `${text}\n` } },
  ],
};
const answers = {
  Ada: 'The sum is 42 (from the everything server). Plan: write notes/report.md with the result.',
  Grace: 'The summary has 12 words; it can be read in about a minute.',
};
const step = new Map();

const server = await startFakeOpenAIServer();
server.setHandler((body, _index, view) => {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const who = system.includes('Grace') ? 'Grace' : 'Ada';
  const tools = (body.tools ?? []).map((t) => t.function.name);
  if (tools.length === 1 && tools[0] === 'classify_tools') {
    // Planning mode asks the first agent once which tools without MCP hints only read.
    return { toolCalls: [{ name: 'classify_tools', arguments: { read_only_tools: ['word_count'] } }] };
  }
  if (!tools.includes('new_answer')) {
    // The final presentation: planning is over, so the winner now really writes the file.
    if (!view.text.includes('Successfully wrote'))
      return { toolCalls: [plans.Ada[1]], text: 'Carrying out the plan… ' };
    return { text: `${answers[who]}\n\nDone: notes/report.md is written.`, chunkSize: 8, delayMs: 15 };
  }
  const votable =
    body.tools.find((t) => t.function.name === 'vote')?.function.parameters.properties.agent_id.enum ?? [];
  if (votable.includes('agent1') || (who === 'Grace' && votable.includes('agent2'))) {
    const target = votable.includes('agent1') ? 'agent1' : 'agent2';
    return {
      text: `${who}: ${target} looks best. `,
      chunkSize: 6,
      delayMs: 30,
      toolCalls: [
        {
          name: 'vote',
          arguments: {
            agent_id: target,
            reason: target === 'agent1' ? 'correct sum and a clear plan' : 'the only answer so far',
          },
        },
      ],
    };
  }
  const n = step.get(who) ?? 0;
  step.set(who, n + 1);
  const call = plans[who][n];
  if (call) return { text: `${who}: using ${call.name}… `, chunkSize: 6, delayMs: 30, toolCalls: [call] };
  return {
    text: `${who}: answering. `,
    chunkSize: 6,
    delayMs: 30,
    toolCalls: [{ name: 'new_answer', arguments: { content: answers[who] } }],
  };
});

const q = JSON.stringify;
const config = path.join(cwd, 'demo-tools.yaml');
writeFileSync(
  config,
  `agents:
  - id: ada
    system_message: You are Ada.
    backend:
      type: chatcompletion
      model: scripted-ada
      base_url: ${q(server.url)}
      mcp_servers:
        everything: { command: ${q(process.execPath)}, args: [${q(everything)}, stdio] }
        files: { command: ${q(process.execPath)}, args: [${q(filesystem)}, ${q(notes)}] }
      allowed_tools: [mcp__everything__get-sum, 'mcp__files__*']
  - id: grace
    system_message: You are Grace.
    backend:
      type: chatcompletion
      model: scripted-grace
      cwd: grace
      base_url: ${q(server.url)}
      custom_tools:
        - name: word_count
          description: Count the words and characters of a text.
          path: ${q(path.join(root, 'examples/tools/text_tools.ts'))}
          function: wordCount
          parameters: { type: object, properties: { text: { type: string } }, required: [text] }
orchestrator:
  coordination:
    enable_planning_mode: true
`,
);
console.log(`Scripted models on ${server.url} — config ${config}\n`);
const child = spawn(
  process.execPath,
  [
    path.join(root, 'bin', 'massgen.js'),
    '--config',
    config,
    'Add 19 and 23, summarise massgen in a sentence, and file a report.',
  ],
  { cwd, stdio: 'inherit' },
);
child.on('exit', async (code) => {
  await server.close();
  if (existsSync(report)) console.log(`\n${report}:\n${readFileSync(report, 'utf8')}`);
  process.exit(code ?? 1);
});
