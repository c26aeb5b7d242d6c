/**
 * An OpenAI Agents JS agent (the real `@openai/agents`, its OpenAI client pointed at the fake server)
 * as a team member beside native agents: its own tool runs inside its loop, and it reaches consensus
 * through massgen's workflow tools.
 */
import { describe, expect, it } from 'vitest';
import { useExternalAgentTeam } from './external-agents.test-support.js';

const { fake, run } = useExternalAgentTeam({
  file: 'analyst.mjs',
  ownTool: 'calculator',
  args: { a: 6, b: 7 },
  marker: 'product: 42',
});

describe('an OpenAI Agents JS agent as a team member', () => {
  it('runs its own loop and tool, then answers and votes with the native agents to consensus', async () => {
    const { result, events } = await run('analyst', 'openai_agents', 'analyst');

    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    const calculator = events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'calculator');
    expect(calculator).toMatchObject({ agentId: 'analyst', providerExecuted: true });
    const analystRequests = fake.server.requests.filter((r) => r.body?.model === 'analyst-model');
    expect(analystRequests.length).toBeGreaterThan(1);
    const first = analystRequests[0]?.body;
    expect(JSON.stringify(first?.messages)).toContain('You are the analyst');
    expect((first?.tools ?? []).map((t) => t.function.name).sort()).toEqual(['calculator', 'new_answer']);
    // The calculator's result went back to the analyst's model inside its own loop.
    expect(JSON.stringify(analystRequests[1]?.body?.messages)).toContain('product: 42');
    expect(result.usage.analyst?.inputTokens).toBeGreaterThan(0);
  });
});
