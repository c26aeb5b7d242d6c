import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { runMassGen } from '../../src/app/run-massgen.js';
import {
  convergingTeam,
  type FakeChatRequestBody,
  type FakeRequestView,
  type FakeResponse,
} from '../../src/testing/index.js';
import type { RunEvent } from '../../src/types/events.js';
import { agentEntry, makeWorkdir, persona, REPO_ROOT, useFakeServer } from './cli-harness.js';

/**
 * A three-agent team around one agent under test (`mine`, any backend settings) and two native agents
 * on the fake server, which MASSGEN_TEST_OPENAI_URL points every test agent at. `handler` replaces the
 * converging team's script (e.g. to give some models plain text).
 */
export function useTeamWithAgent() {
  const fake = useFakeServer();
  beforeAll(() => {
    process.env.MASSGEN_TEST_OPENAI_URL = fake.server.url;
  });
  afterAll(() => {
    delete process.env.MASSGEN_TEST_OPENAI_URL;
  });
  const run = async (
    backend: Record<string, unknown>,
    options: {
      extra?: Record<string, unknown>;
      handler?: Parameters<typeof fake.server.setHandler>[0];
      question?: string;
      env?: Record<string, string | undefined>;
    } = {},
  ) => {
    fake.server.setHandler(options.handler ?? convergingTeam({ answer: '6 x 7 = 42', final: 'It is 42.' }));
    const events: RunEvent[] = [];
    const cwd = makeWorkdir();
    const result = await runMassGen({
      config: {
        agents: [
          { id: 'mine', backend },
          agentEntry('native1', fake.server.url, { system_message: persona('native1') }),
          agentEntry('native2', fake.server.url, { system_message: persona('native2') }),
        ],
        ...options.extra,
      },
      question: options.question ?? 'What is 6 times 7?',
      cwd,
      env: options.env ?? { ...process.env },
      logging: false,
      onEvent: (event) => events.push(event),
    });
    return { result, events, cwd };
  };
  return { fake, run };
}

/**
 * A three-agent team for adapter tests: the external agent from `test/fixtures/agents/<file>` (its
 * model pointed at the fake server through MASSGEN_TEST_OPENAI_URL) and two native agents. The fake
 * model makes the external agent call its own tool once (`ownTool` with `args`, until a result containing
 * `marker` is in its conversation), then the whole team converges on "It is 42.".
 */
export function useExternalAgentTeam(options: {
  file: string;
  ownTool: string;
  args: Record<string, unknown>;
  marker: string;
}) {
  const fake = useFakeServer();
  const module = path.join(REPO_ROOT, 'test', 'fixtures', 'agents', options.file);
  beforeAll(() => {
    process.env.MASSGEN_TEST_OPENAI_URL = fake.server.url;
  });
  afterAll(() => {
    delete process.env.MASSGEN_TEST_OPENAI_URL;
  });
  const team = convergingTeam({ answer: '6 x 7 = 42', final: 'It is 42.' });
  const handler = (body: FakeChatRequestBody, index: number, view: FakeRequestView): FakeResponse => {
    const done = (body.messages ?? []).some(
      (m) => m.role === 'tool' && String(m.content).includes(options.marker),
    );
    if (view.toolNames.includes(options.ownTool) && view.toolNames.includes('new_answer') && !done)
      return { toolCalls: [{ name: options.ownTool, arguments: options.args }] };
    return team(body, index, view);
  };
  /** Runs the team with the external agent as `id`, of `type`, exported as `exportName`. */
  const run = async (id: string, type: string, exportName: string) => {
    fake.server.setHandler(handler);
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: {
        agents: [
          { id, backend: { type, module, export: exportName } },
          agentEntry('native1', fake.server.url, { system_message: persona('native1') }),
          agentEntry('native2', fake.server.url, { system_message: persona('native2') }),
        ],
      },
      question: 'What is 6 times 7?',
      cwd: makeWorkdir(),
      env: {},
      logging: false,
      onEvent: (event) => events.push(event),
    });
    return { result, events };
  };
  return { fake, module, run };
}
