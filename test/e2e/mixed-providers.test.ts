import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import fs from 'node:fs';
import path from 'node:path';
import { anthropicMessagesDialect } from '../../src/testing/fake-server/anthropic-messages.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import { geminiDialect } from '../../src/testing/fake-server/gemini.js';
import { openAIResponsesDialect } from '../../src/testing/fake-server/openai-responses.js';
import type { FakeResponse } from '../../src/testing/fake-server/script.js';
import { startFakeServer, type FakeServer } from '../../src/testing/fake-server/server.js';
import {
  linesOf,
  makeWorkdir,
  onlyLogDir,
  readEvents,
  readStatus,
  removeTempDirs,
  runCli,
  writeConfig,
} from './cli-harness.js';

// One local server speaking three vendors' real streaming formats; each agent's backend points at it.
let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer([openAIResponsesDialect, anthropicMessagesDialect, geminiDialect]);
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());
afterEach(() => removeTempDirs());

const keys = {
  OPENAI_API_KEY: 'sk-test-openai-111111',
  ANTHROPIC_API_KEY: 'sk-ant-test-222222',
  GOOGLE_API_KEY: 'g-test-333333',
};

function mixedTeam(cwd: string, extra: Record<string, unknown> = {}): void {
  writeConfig(cwd, {
    agents: [
      {
        id: 'gpt',
        backend: { type: 'openai', model: 'gpt-4o-mini', base_url: `${server.origin}/v1` },
        system_message: 'You are gpt.',
      },
      {
        id: 'sonnet',
        backend: { type: 'claude', model: 'claude-sonnet-4-5', base_url: `${server.origin}/v1` },
        system_message: 'You are sonnet.',
      },
      {
        id: 'flash',
        backend: { type: 'gemini', model: 'gemini-2.5-flash', base_url: `${server.origin}/v1beta` },
        system_message: 'You are flash.',
      },
    ],
    ...extra,
  });
}

const who = (view: FakeRequestView) => /You are (\w+)\./.exec(view.system)?.[1] ?? '?';

/** Answer first; once answers exist, vote for sonnet's (agent2) — or any offered answer until it exists. */
function converge(view: FakeRequestView): FakeResponse {
  const name = who(view);
  if (view.toolNames.length === 0) return { text: `Final from ${name}: the answer is 42.`, chunkSize: 6 };
  if (!view.toolNames.includes('vote')) {
    return {
      text: `${name} thinking. `,
      toolCalls: [{ name: 'new_answer', arguments: { content: `${name} says 42 because 6 x 7.` } }],
    };
  }
  const target = view.votableIds.includes('agent2') ? 'agent2' : (view.votableIds[0] ?? 'agent1');
  return { toolCalls: [{ name: 'vote', arguments: { agent_id: target, reason: 'shows the working' } }] };
}

describe('a team mixing openai, claude and gemini', () => {
  it('reaches consensus end to end through the CLI, with tokens and cost per agent', async () => {
    server.setHandler((_body, _i, view) => converge(view));
    const cwd = makeWorkdir();
    mixedTeam(cwd);

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'What is 6 times 7?'], {
      cwd,
      env: keys,
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Every vendor's wire format was used, with its own credentials header.
    const dialects = new Set(server.requests.map((r) => r.dialect));
    expect(dialects).toEqual(new Set(['openai-responses', 'anthropic-messages', 'gemini']));
    expect(server.requests.every((r) => r.scripted && r.hasAuthorization)).toBe(true);

    const out = linesOf(result.stdout);
    expect(out).toContain('Winner: sonnet — votes: sonnet 3');
    expect(out).toContain('=== Final answer (sonnet) ===');
    expect(out).toContain('Final from sonnet: the answer is 42.');
    expect(out).toContainEqual(expect.stringMatching(/^ {2}gpt: \d+ in \/ \d+ out tokens — \$0\.\d{4}$/));
    expect(out).toContainEqual(expect.stringMatching(/^ {2}total: \d+ in \/ \d+ out tokens — \$0\.\d{4}$/));

    const logDir = onlyLogDir(cwd);
    const events = readEvents(logDir);
    expect(events.find((e) => e.type === 'coordination.finished')).toMatchObject({
      reason: 'consensus',
      winnerId: 'sonnet',
    });
    const status = readStatus(logDir) as unknown as {
      agents: Record<string, { backend: string; cost_usd: number | null; usage: { input_tokens: number } }>;
      totals: { cost_usd: number };
    };
    expect(Object.values(status.agents).map((a) => a.backend)).toEqual(['openai', 'claude', 'gemini']);
    for (const agent of Object.values(status.agents)) {
      expect(agent.usage.input_tokens).toBeGreaterThan(0);
      expect(agent.cost_usd).toBeGreaterThan(0);
    }
    expect(status.totals.cost_usd).toBeGreaterThan(0);
    const metadata = parseYaml(fs.readFileSync(path.join(logDir, 'execution_metadata.yaml'), 'utf8')) as {
      cost_usd: { agents: Record<string, number>; total: number };
    };
    expect(Object.keys(metadata.cost_usd.agents)).toEqual(['gpt', 'sonnet', 'flash']);
    for (const value of Object.values(keys)) {
      for (const file of fs.readdirSync(logDir, { recursive: true, encoding: 'utf8' })) {
        const full = path.join(logDir, file);
        if (fs.statSync(full).isFile()) expect(fs.readFileSync(full, 'utf8')).not.toContain(value);
      }
      expect(result.stdout).not.toContain(value);
    }
  });

  it('stops on orchestrator.max_cost_usd like the timeout: best answer presented, logs say budget', async () => {
    // Each coordination call reports 200k input tokens: $0.60 on claude-sonnet-4-5, so the $1 budget is
    // crossed in the second round, whichever agent's call finishes first (answers exist by then).
    server.setHandler((_body, _i, view) => {
      const reply = converge(view);
      return 'status' in reply || 'hang' in reply ? reply : { ...reply, usage: { promptTokens: 200_000 } };
    });
    const cwd = makeWorkdir();
    mixedTeam(cwd, { orchestrator: { max_cost_usd: 1 } });

    const result = await runCli(['--config', 'config.yaml', '--automation', 'What is 6 times 7?'], {
      cwd,
      env: keys,
    });

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = readEvents(onlyLogDir(cwd));
    const end = events.find((e) => e.type === 'coordination.finished');
    expect(end).toMatchObject({ reason: 'budget' });
    expect(linesOf(result.stdout)).toContain(`WINNER: ${(end as { winnerId: string }).winnerId}`);
    expect(readStatus(onlyLogDir(cwd))).toMatchObject({ coordination: { end_reason: 'budget' } });
  });

  it('a provider error is one line with the agent id and HTTP status, and the key never appears', async () => {
    server.setHandler((_body, _i, view) =>
      who(view) === 'sonnet'
        ? {
            status: 401,
            body: {
              type: 'error',
              error: { type: 'authentication_error', message: `invalid x-api-key ${keys.ANTHROPIC_API_KEY}` },
            },
          }
        : converge(view),
    );
    const cwd = makeWorkdir();
    mixedTeam(cwd);

    const result = await runCli(['--config', 'config.yaml', '--no-display', 'Q?'], { cwd, env: keys });

    expect(result.code).toBe(0);
    const failures = linesOf(result.stdout).filter((l) => l.startsWith('[sonnet] ✖'));
    expect(failures[0]).toMatch(
      /^\[sonnet\] ✖ turn failed: claude: HTTP 401 Unauthorized: invalid x-api-key \S+$/,
    );
    expect(result.stdout + result.stderr).not.toContain(keys.ANTHROPIC_API_KEY);
  });
});
