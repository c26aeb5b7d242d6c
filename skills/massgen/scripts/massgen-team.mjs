#!/usr/bin/env node
// Runs a massgen team in the background and reads its result, for coding agents without the MCP server.
//
//   node massgen-team.mjs start --config team.yaml "question"   → {"log_dir", "status_file", "pid", "output"}
//   node massgen-team.mjs status LOG_DIR                         → phase, answers, votes, cost
//   node massgen-team.mjs result LOG_DIR [--wait SECONDS]        → final answer, winner, votes, deliverables
//
// MASSGEN_BIN overrides the command (default: "npx --no-install massgen"; e.g. "node /path/to/bin/massgen.js").
// Prints one JSON object; exits 0, or 1 with {"error": …} on stderr.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const print = (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
function fail(message) {
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  process.exit(1);
}

function readStatus(logDir) {
  const file = path.join(logDir, 'status.json');
  if (!existsSync(file)) fail(`no status.json in ${logDir}: is it a massgen log folder?`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

function summary(status) {
  return {
    phase: status.phase,
    elapsed_seconds: status.elapsed_seconds,
    agents: Object.fromEntries(
      Object.entries(status.agents ?? {}).map(([id, a]) => [
        id,
        {
          status: a.status,
          answers: a.answer_count,
          vote: a.vote ? `${a.vote.target} (${a.vote.label})` : null,
        },
      ]),
    ),
    tallies: status.coordination?.tallies ?? {},
    winner: status.coordination?.winner ?? null,
    cost_usd: status.totals?.cost_usd ?? 0,
  };
}

async function start(args) {
  const bin = (process.env.MASSGEN_BIN ?? 'npx --no-install massgen').split(' ').filter(Boolean);
  const dir = path.join(process.cwd(), '.massgen', 'skill-runs');
  mkdirSync(dir, { recursive: true });
  const output = path.join(dir, `run-${Date.now()}.out`);
  const fd = openSync(output, 'a');
  const child = spawn(bin[0], [...bin.slice(1), '--automation', ...args], {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  let exited = null;
  child.on('exit', (code) => (exited = code));
  child.unref();
  // The log folder is printed once the config is checked and the agents are ready.
  for (let waited = 0; waited < 600_000; waited += 200) {
    const text = existsSync(output) ? readFileSync(output, 'utf8') : '';
    const logDir = /^LOG_DIR: (.+)$/m.exec(text)?.[1];
    if (logDir && logDir !== '-')
      return print({
        log_dir: logDir,
        status_file: path.join(logDir, 'status.json'),
        pid: child.pid,
        output,
      });
    if (exited !== null)
      fail(`massgen exited (${exited}) before the run started: ${text.trim().slice(-2000)}`);
    await sleep(200);
  }
  fail(`no LOG_DIR after 10 minutes; see ${output}`);
}

async function result(logDir, waitSeconds) {
  const deadline = Date.now() + waitSeconds * 1000;
  let status = readStatus(logDir);
  while (status.final?.status == null && Date.now() < deadline) {
    await sleep(1000);
    status = readStatus(logDir);
  }
  if (status.final?.status == null)
    return print({ done: false, ...summary(status), hint: 'call result again' });
  const answerFile = status.final.answer_file;
  const workspace = answerFile ? path.join(path.dirname(answerFile), 'workspace') : null;
  print({
    done: true,
    status: status.final.status,
    winner: status.coordination?.winner ?? null,
    final_answer: answerFile && existsSync(answerFile) ? readFileSync(answerFile, 'utf8') : null,
    tallies: status.coordination?.tallies ?? {},
    answer_file: answerFile,
    workspace_dir: workspace && existsSync(workspace) ? workspace : null,
    files:
      workspace && existsSync(workspace)
        ? readdirSync(workspace, { recursive: true }).map(String).slice(0, 200)
        : [],
    error: status.final.error,
    cost_usd: status.totals?.cost_usd ?? 0,
    log_dir: logDir,
  });
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'start') {
  if (rest.length === 0) fail('usage: massgen-team.mjs start --config FILE "question"');
  await start(rest);
} else if (command === 'status') {
  if (!rest[0]) fail('usage: massgen-team.mjs status LOG_DIR');
  print({ done: readStatus(rest[0]).final?.status != null, ...summary(readStatus(rest[0])) });
} else if (command === 'result') {
  if (!rest[0]) fail('usage: massgen-team.mjs result LOG_DIR [--wait SECONDS]');
  const at = rest.indexOf('--wait');
  await result(rest[0], at === -1 ? 30 : Number(rest[at + 1] ?? 30));
} else {
  fail('usage: massgen-team.mjs start|status|result … (see the comment at the top of this file)');
}
