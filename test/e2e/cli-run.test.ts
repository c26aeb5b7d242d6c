/**
 * Successful runs of the built CLI against the fake OpenAI-compatible server: a converging 3-agent
 * team (plain and --automation output, the log folder), a one-agent run from flags, --no-logs and .env.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  LOG_DIR_NAME,
  agentEntry,
  answerOf,
  convergingHandler,
  finalAnswerOf,
  linesOf,
  listFiles,
  logRoot,
  makeWorkdir,
  onlyLogDir,
  persona,
  readEvents,
  readJson,
  readStatus,
  runCli,
  startCli,
  toolNames,
  writeConfig,
  useFakeServer,
} from './cli-harness.js';

const SECRET = 'sk-test-SECRET123456';
const IDS = ['alpha', 'beta', 'gamma'] as const;
const QUESTION = 'What is 6 times 7?';

const fake = useFakeServer();

/** A workdir with a 3-agent config (every agent with the secret key) pointing at the fake fake.server. */
function teamWorkdir(): string {
  const cwd = makeWorkdir();
  writeConfig(cwd, {
    agents: IDS.map((id) =>
      agentEntry(id, fake.server.url, { system_message: persona(id), backend: { api_key: SECRET } }),
    ),
  });
  return cwd;
}

describe('a 3-agent run through the fake server', () => {
  it('streams each agent prefixed by its id, converges, prints the final answer and writes the logs', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = teamWorkdir();

    const result = await runCli(['--config', 'config.yaml', '--no-display', QUESTION], { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = linesOf(result.stdout);

    // --- stdout -----------------------------------------------------------------------------
    expect(out[0]).toBe(`Question: ${QUESTION}`);
    expect(out[1]).toBe(
      'Agents: alpha (chatcompletion/model-alpha), beta (chatcompletion/model-beta), gamma (chatcompletion/model-gamma)',
    );
    // Text streamed in 5-character chunks comes out as whole lines, each prefixed by its agent. (Whether
    // beta and gamma answer before voting depends on timing; alpha always answers first.)
    expect(out).toContain('[alpha] alpha is working on it.');
    for (const id of IDS) {
      expect(
        out.filter((l) => l === `[${id}] ${id} reads the answers.` || l === `[${id}] ${id} is working on it.`)
          .length,
      ).toBeGreaterThan(0);
      expect(out).toContain(`[${id}] ✔ vote → agent1.1 (alpha): ${id}: agent1 is correct`);
    }
    expect(out).toContain(`[alpha] ✔ new answer agent1.1: ${answerOf('alpha')}`);
    const prefixed = out.filter((l) => l.startsWith('['));
    expect(prefixed.length).toBeGreaterThan(6);
    for (const l of prefixed) expect(l).toMatch(/^\[(alpha|beta|gamma)\] \S/);
    expect(out).toContain('Winner: alpha — votes: alpha 3');
    const header = out.indexOf('=== Final answer (alpha) ===');
    expect(header).toBeGreaterThan(0);
    expect(out[header + 1]).toBe(finalAnswerOf('alpha'));
    const summary = out.findIndex((l) => l.startsWith('✔ Completed'));
    expect(out[summary]).toMatch(/^✔ Completed in \d+\.\ds — winner alpha$/);
    // Tokens per agent and in total; these fake model names have no known price.
    expect(out.slice(summary + 1, summary + 5)).toEqual([
      expect.stringMatching(/^ {2}alpha: \d+ in \/ \d+ out tokens — cost unknown$/),
      expect.stringMatching(/^ {2}beta: \d+ in \/ \d+ out tokens — cost unknown$/),
      expect.stringMatching(/^ {2}gamma: \d+ in \/ \d+ out tokens — cost unknown$/),
      expect.stringMatching(/^ {2}total: \d+ in \/ \d+ out tokens — cost unknown$/),
    ]);

    // --- what the fake server saw -----------------------------------------------------------
    const bodies = fake.server.requests.map((r) => r.body);
    expect(fake.server.requests.every((r) => r.scripted && r.hasAuthorization)).toBe(true);
    expect(bodies.every((b) => b?.stream === true)).toBe(true);
    // The first turns offer new_answer without vote (no answers yet, no empty enum).
    expect(bodies.some((b) => b && toolNames(b).join() === 'new_answer')).toBe(true);
    expect(bodies.some((b) => b && toolNames(b).includes('vote'))).toBe(true);
    // Exactly one presentation call, without workflow tools.
    const presentation = bodies.filter((b) => b && !toolNames(b).includes('new_answer'));
    expect(presentation).toHaveLength(1);
    expect(toolNames(presentation[0] ?? {})).toEqual([]);

    // --- the log folder ---------------------------------------------------------------------
    const logDir = onlyLogDir(cwd);
    expect(path.basename(logDir)).toMatch(LOG_DIR_NAME);
    expect(result.stdout.trimEnd().endsWith(`Logs: ${logDir}`)).toBe(true);

    const events = readEvents(logDir);
    expect(events[0]?.type).toBe('run.started');
    const last = events.at(-1);
    expect(last?.type).toBe('run.finished');
    if (last?.type !== 'run.finished') throw new Error('unreachable');
    expect(last.status).toBe('completed');
    expect(last.winnerId).toBe('alpha');
    expect(last.finalAnswer).toBe(finalAnswerOf('alpha'));
    for (let i = 1; i < events.length; i++)
      expect((events[i]?.seq ?? -1) > (events[i - 1]?.seq ?? -1)).toBe(true);
    expect(events[0]?.seq).toBe(0);
    expect(new Set(events.map((e) => e.runId)).size).toBe(1);

    const status = readStatus(logDir);
    expect(status.phase).toBe('finished');
    expect(status.coordination).toMatchObject({ end_reason: 'consensus', winner: 'alpha' });
    expect(status.final).toMatchObject({ status: 'completed', exit_code: 0, error: null });
    const finalFile = path.join(logDir, 'final', 'alpha', 'answer.txt');
    expect(status.final.answer_file).toBe(finalFile);
    expect(fs.readFileSync(finalFile, 'utf8')).toBe(finalAnswerOf('alpha'));

    const vote = readJson<{
      winner: string;
      reason: string;
      tallies: Record<string, number>;
      votes: { voter: string; target: string; counted: boolean }[];
    }>(path.join(logDir, 'vote.json'));
    expect(vote).toMatchObject({ winner: 'alpha', reason: 'consensus', tallies: { alpha: 3 } });
    const counted = vote.votes.filter((v) => v.counted);
    expect(counted.map((v) => v.voter).sort()).toEqual(['alpha', 'beta', 'gamma']);
    expect(counted.every((v) => v.target === 'alpha')).toBe(true);

    // One agent_<id>/<timestamp>/answer.txt per accepted answer, holding exactly that answer.
    const submitted = events.filter((e) => e.type === 'answer.submitted');
    expect(submitted.length).toBeGreaterThanOrEqual(1);
    const files = listFiles(logDir);
    const answerFiles = files.filter((f) => f.startsWith('agent_'));
    expect(answerFiles).toHaveLength(submitted.length);
    for (const file of answerFiles)
      expect(file).toMatch(/^agent_[a-z]+\/\d{8}_\d{6}_\d{6}(_\d+)?\/answer\.txt$/);
    for (const id of IDS) {
      const mine = submitted.filter((e) => e.agentId === id);
      const contents = answerFiles
        .filter((f) => f.startsWith(`agent_${id}/`))
        .map((f) => fs.readFileSync(path.join(logDir, f), 'utf8'));
      expect(contents).toEqual(mine.map(() => answerOf(id)));
    }
    expect(submitted.some((e) => e.agentId === 'alpha')).toBe(true);

    // The coordination table has one column per agent.
    const table = fs.readFileSync(path.join(logDir, 'coordination_table.txt'), 'utf8');
    const headerRow = linesOf(table).find((l) => l.startsWith('time (s)'));
    expect(headerRow?.split('|').map((c) => c.trim())).toEqual([
      'time (s)',
      'alpha (agent1)',
      'beta (agent2)',
      'gamma (agent3)',
    ]);

    const metadata = parseYaml(fs.readFileSync(path.join(logDir, 'execution_metadata.yaml'), 'utf8')) as {
      status: string;
      winner: string;
      token_usage: { agents: Record<string, { input_tokens: number; output_tokens: number }> };
    };
    expect(metadata).toMatchObject({ status: 'completed', winner: 'alpha' });
    expect(Object.keys(metadata.token_usage.agents).sort()).toEqual([...IDS]);
    for (const id of IDS) {
      expect(metadata.token_usage.agents[id]?.input_tokens).toBeGreaterThan(0);
      expect(metadata.token_usage.agents[id]?.output_tokens).toBeGreaterThan(0);
    }

    // The API key is used (Authorization was sent) but appears in no log file and no output.
    expect(files).toEqual(
      expect.arrayContaining([
        'coordination_events.json',
        'coordination_table.txt',
        'execution_metadata.yaml',
        'final/alpha/answer.txt',
        'status.json',
        'vote.json',
      ]),
    );
    for (const file of files) expect(fs.readFileSync(path.join(logDir, file), 'utf8')).not.toContain(SECRET);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('--automation prints only the KEY: value lines, LOG_DIR and STATUS first', async () => {
    // Hold the first model call until the test has looked at status.json.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    fake.server.setHandler(async (body) => {
      await released;
      return convergingHandler(body);
    });
    const cwd = teamWorkdir();

    const run = startCli(['--config', 'config.yaml', '--automation', QUESTION], { cwd });
    const [, statusAtStart = ''] = await run.output(/^STATUS: (.*)\n/m, 'the STATUS line');
    // A script may start polling status.json as soon as it reads the STATUS line.
    expect(fs.existsSync(statusAtStart)).toBe(true);
    release();
    const result = await run.result;

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = linesOf(result.stdout);
    expect(lines).toHaveLength(8);
    const logDir = onlyLogDir(cwd);
    const [logLine, statusLine, questionLine, winner, answerFile, duration, preview, completed] = lines;
    expect(logLine).toBe(`LOG_DIR: ${logDir}`);
    expect(path.isAbsolute(logDir)).toBe(true);
    expect(statusLine).toBe(`STATUS: ${path.join(logDir, 'status.json')}`);
    expect(readStatus(logDir).final.status).toBe('completed');
    expect(questionLine).toBe(`QUESTION: ${QUESTION}`);
    expect(winner).toBe('WINNER: alpha');
    const answerPath = path.join(logDir, 'final', 'alpha', 'answer.txt');
    expect(answerFile).toBe(`ANSWER_FILE: ${answerPath}`);
    expect(fs.readFileSync(answerPath, 'utf8')).toBe(finalAnswerOf('alpha'));
    expect(duration).toMatch(/^DURATION: \d+\.\d$/);
    const seconds = duration?.slice('DURATION: '.length);
    expect(preview).toBe(`ANSWER_PREVIEW: ${finalAnswerOf('alpha')}`);
    expect(completed).toBe(`COMPLETED: 3 agents, ${seconds}s total`);
    expect(result.stdout).not.toContain('[alpha]');
  });
});

describe('a one-agent run from flags', () => {
  it('--backend chatcompletion --model m --base-url makes one plain request and prints the answer', async () => {
    const answer = 'The answer is 42: six sevens.';
    fake.server.enqueue({ text: answer, chunkSize: 4 });
    const cwd = makeWorkdir();

    const result = await runCli(
      ['--backend', 'chatcompletion', '--model', 'm', '--base-url', fake.server.url, '--no-display', 'Q?'],
      { cwd },
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(fake.server.requests).toHaveLength(1);
    const body = fake.server.requests[0]?.body;
    expect(body?.model).toBe('m');
    expect(body?.tools).toBeUndefined();
    expect(JSON.stringify(body)).not.toMatch(/new_answer|"vote"/);
    expect(fake.server.requests[0]?.hasAuthorization).toBe(false);
    const out = linesOf(result.stdout);
    const header = out.indexOf('=== Final answer (agent_1) ===');
    expect(header).toBeGreaterThan(0);
    // The streamed answer stands on its own line(s): nothing else is glued onto it.
    expect(out[header + 1]).toBe(answer);
    expect(out.filter((l) => l.includes(answer))).toHaveLength(1);
    expect(out).toContainEqual(expect.stringMatching(/^✔ Completed in \d+\.\ds — winner agent_1$/));
    const logDir = onlyLogDir(cwd);
    expect(fs.readFileSync(path.join(logDir, 'final', 'agent_1', 'answer.txt'), 'utf8')).toBe(answer);
  });
});

describe('ui.display_type: silent', () => {
  it('prints only the final answer', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = makeWorkdir();
    writeConfig(cwd, {
      agents: IDS.map((id) => agentEntry(id, fake.server.url, { system_message: persona(id) })),
      ui: { display_type: 'silent' },
    });

    const result = await runCli(['--config', 'config.yaml', QUESTION], { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${finalAnswerOf('alpha')}\n`);
  });
});

describe('--no-logs and .env', () => {
  it('--no-logs writes no .massgen folder', async () => {
    fake.server.setHandler(convergingHandler);
    const cwd = teamWorkdir();

    const result = await runCli(['--config', 'config.yaml', '--no-display', '--no-logs', QUESTION], { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`=== Final answer (alpha) ===\n${finalAnswerOf('alpha')}\n`);
    expect(result.stdout).not.toContain('Logs:');
    expect(fs.existsSync(path.join(cwd, '.massgen'))).toBe(false);
    expect(fs.readdirSync(cwd)).toEqual(['config.yaml']);
  });

  it('.env in the (trusted) working directory supplies ${VAR} in the config and the API key', async () => {
    const dotenvKey = 'sk-dotenv-KEY987654321';
    fake.server.setHandler(() => ({ text: 'dotenv ok' }));
    const cwd = makeWorkdir();
    fs.writeFileSync(
      path.join(cwd, '.env'),
      `MODEL_FROM_DOTENV=dotenv-model-7\nOPENAI_API_KEY=${dotenvKey}\n`,
    );
    writeConfig(cwd, {
      agent: {
        id: 'solo',
        // A loopback server gets no cloud key unless the config names one explicitly.
        backend: {
          type: 'chatcompletion',
          model: '${MODEL_FROM_DOTENV}',
          base_url: fake.server.url,
          api_key: '${OPENAI_API_KEY}',
        },
      },
    });

    // A folder's own .env is loaded once the folder is trusted (test/e2e/project-trust.test.ts).
    expect((await runCli(['trust'], { cwd })).code).toBe(0);
    const result = await runCli(['--config', 'config.yaml', '--automation', 'Which model?'], { cwd });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(fake.server.requests).toHaveLength(1);
    expect(fake.server.requests[0]?.body?.model).toBe('dotenv-model-7');
    expect(fake.server.requests[0]?.hasAuthorization).toBe(true);
    expect(result.stdout).toContain('WINNER: solo\n');
    const logDir = onlyLogDir(cwd);
    const metadata = parseYaml(fs.readFileSync(path.join(logDir, 'execution_metadata.yaml'), 'utf8')) as {
      config: { agents: { backend: { model: string } }[] };
    };
    expect(metadata.config.agents[0]?.backend.model).toBe('dotenv-model-7');
    for (const file of listFiles(logDir))
      expect(fs.readFileSync(path.join(logDir, file), 'utf8')).not.toContain(dotenvKey);

    // --validate reads the same .env.
    const validate = await runCli(['--validate', 'config.yaml'], { cwd });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('solo: chatcompletion / dotenv-model-7');
    expect(fs.readdirSync(logRoot(cwd))).toHaveLength(1);
  });
});
