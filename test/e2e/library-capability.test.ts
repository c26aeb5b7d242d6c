/**
 * A capability of one's own through the library API (`capabilities: [...]`): the proof that adding
 * one touches nothing else — this file defines a toy capability with a tool and a prompt section, and
 * a run built from an ordinary config offers the tool, shows the section and runs the tool.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runMassGen, withPromptSection, type Capability, type RunEvent } from '../../src/index.js';
import { ConfigError } from '../../src/types/errors.js';
import { defineTool } from '../../src/tools/index.js';
import type { FakeResponse } from '../../src/testing/fake-openai-server.js';
import type { FakeRequestView } from '../../src/testing/fake-server/dialect.js';
import {
  agentEntry,
  agentOf,
  makeWorkdir,
  persona,
  systemText,
  toolNames,
  useFakeServer,
  votableIds,
} from './cli-harness.js';

const fake = useFakeServer();

const SECTION = 'Glossary: call lookup with a word to learn what it means here.';

/** A toy capability: `lookup` for alpha, a prompt section for everyone, a warning, an end and a close. */
function glossary() {
  const seen = { loaded: 0, events: 0, finished: 0, closed: 0, calls: [] as string[] };
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look a word up in the glossary.',
    parameters: z.object({ word: z.string() }),
    readOnly: true,
    execute: ({ word }, { agentId }) => {
      seen.calls.push(`${agentId}:${word}`);
      return `glossary: ${word} means many agents`;
    },
  });
  const capability: Capability = {
    name: 'glossary',
    uses: (config) => config.agents.some((a) => a.id === 'alpha'),
    load: async () => {
      seen.loaded++;
      return {
        prepare: async (run) => ({
          tools: { alpha: [lookup] },
          prompt: (_agentId, message) => withPromptSection(message, SECTION),
          warnings: [{ code: 'glossary_small', message: `the glossary has one word for "${run.question}"` }],
          onEvent: () => void seen.events++,
          finish: async ({ finished }) => {
            if (finished) seen.finished++;
          },
          close: async () => void seen.closed++,
        }),
      };
    },
  };
  return { capability, seen };
}

/** A capability a run does not use: never loaded. */
function unused(): { capability: Capability; loads: () => number } {
  let loads = 0;
  return {
    capability: {
      name: 'unused',
      uses: () => false,
      load: async () => {
        loads++;
        return { prepare: async () => ({}) };
      },
    },
    loads: () => loads,
  };
}

/** alpha looks a word up once, then answers with what it saw; beta votes for alpha. */
function handler(body: Parameters<typeof agentOf>[0], _i: number, view: FakeRequestView): FakeResponse {
  const id = agentOf(body);
  if (!toolNames(body).includes('new_answer')) return { text: `final by ${id}` };
  if (votableIds(body).includes('agent1')) {
    return { toolCalls: [{ name: 'vote', arguments: { agent_id: 'agent1', reason: 'fine' } }] };
  }
  if (id === 'alpha' && !/glossary:/.test(view.text)) {
    return { toolCalls: [{ name: 'lookup', arguments: { word: 'massgen' } }] };
  }
  const saw = /glossary: [^\n"]*/.exec(view.text)?.[0] ?? 'nothing';
  return { toolCalls: [{ name: 'new_answer', arguments: { content: `${id} saw ${saw}` } }] };
}

const config = () => ({
  agents: ['alpha', 'beta'].map((id) =>
    agentEntry(id, fake.server.url, { system_message: persona(id), backend: { cwd: `${id}_ws` } }),
  ),
});

describe('a capability from code', () => {
  it('adds its tool and prompt section to a run, sees its events and its end, and is closed', async () => {
    fake.server.setHandler(handler);
    const { capability, seen } = glossary();
    const spare = unused();
    const events: RunEvent[] = [];
    const result = await runMassGen({
      config: config(),
      question: 'What does massgen mean?',
      cwd: makeWorkdir(),
      env: {},
      logging: false,
      capabilities: [spare.capability, capability],
      onEvent: (e) => events.push(e),
    });
    expect(result.status).toBe('completed');
    const alpha = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'alpha')!.body!;
    const beta = fake.server.requests.find((r) => r.body && agentOf(r.body) === 'beta')!.body!;
    // The tool joins alpha's custom tools, after its file tools; beta has none of it.
    expect(toolNames(alpha).filter((n) => ['read_file', 'lookup'].includes(n))).toEqual([
      'read_file',
      'lookup',
    ]);
    expect(toolNames(beta)).not.toContain('lookup');
    // The section follows the config's system_message, for both agents.
    expect(systemText(alpha)).toContain(`${persona('alpha')}\n\n${SECTION}`);
    expect(systemText(beta)).toContain(`${persona('beta')}\n\n${SECTION}`);
    expect(seen.calls).toEqual(['alpha:massgen']);
    const answer = events.find((e) => e.type === 'answer.submitted' && e.agentId === 'alpha');
    expect((answer as { content?: string } | undefined)?.content).toBe(
      'alpha saw glossary: massgen means many agents',
    );
    const warnings = events.filter((e) => e.type === 'run.warning').map((e) => (e as { code: string }).code);
    expect(warnings).toContain('glossary_small');
    expect(seen.events).toBe(events.length);
    expect(seen).toMatchObject({ loaded: 1, finished: 1, closed: 1 });
    expect(spare.loads()).toBe(0);
  });

  it('a capability that fails to prepare stops the run before it starts, and those before it are closed', async () => {
    fake.server.setHandler(handler);
    const { capability, seen } = glossary();
    const broken: Capability = {
      name: 'broken',
      uses: () => true,
      load: async () => ({
        prepare: async () => {
          throw new ConfigError('broken: its service is not configured', { hint: 'set it up' });
        },
      }),
    };
    await expect(
      runMassGen({
        config: config(),
        question: 'q',
        cwd: makeWorkdir(),
        env: {},
        logging: false,
        capabilities: [capability, broken],
      }),
    ).rejects.toThrow('broken: its service is not configured');
    expect(seen).toMatchObject({ loaded: 1, closed: 1, events: 0 });
    expect(fake.server.requests).toEqual([]);
  });

  it('two capabilities that each give a Stop hook stop the run before it starts, and are closed', async () => {
    fake.server.setHandler(handler);
    const closed: string[] = [];
    const stopper = (name: string): Capability => ({
      name,
      uses: () => true,
      load: async () => ({
        prepare: async () => ({
          stopHook: async () => null,
          close: async () => void closed.push(name),
        }),
      }),
    });
    await expect(
      runMassGen({
        config: config(),
        question: 'q',
        cwd: makeWorkdir(),
        env: {},
        logging: false,
        capabilities: [stopper('one'), stopper('two')],
      }),
    ).rejects.toThrow('two capabilities of this run give stopHook: at most one may');
    expect(closed.sort()).toEqual(['one', 'two']);
    expect(fake.server.requests).toEqual([]);
  });
});
