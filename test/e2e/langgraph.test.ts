/**
 * LangGraph.js graphs (the real `@langchain/langgraph`, `ChatOpenAI` pointed at the fake server) as team
 * members beside native agents: the prebuilt ReAct agent built from massgen's tools, and a compiled graph
 * that binds them from its config. Each runs its own tool inside the graph and reaches consensus through
 * massgen's workflow tools.
 */
import { describe, expect, it } from 'vitest';
import { useExternalAgentTeam } from './external-agents.test-support.js';

const { fake, run } = useExternalAgentTeam({
  file: 'planner.mjs',
  ownTool: 'multiply',
  args: { a: 6, b: 7 },
  marker: 'product: 42',
});

describe('a LangGraph.js graph as a team member', () => {
  it.each(['planner', 'compiled'])('export %s runs its own tool, then reaches consensus', async (name) => {
    const { result, events } = await run('planner', 'langgraph', name);

    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(result.finalAnswer).toBe('It is 42.');
    const multiply = events.find((e) => e.type === 'tool.call.finished' && e.toolName === 'multiply');
    expect(multiply).toMatchObject({ agentId: 'planner', providerExecuted: true });
    const requests = fake.server.requests.filter((r) => r.body?.model === 'planner-model');
    expect(requests.length).toBeGreaterThan(1);
    const first = requests[0]?.body;
    if (name === 'planner') expect(JSON.stringify(first?.messages)).toContain('You are the planner');
    expect((first?.tools ?? []).map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['multiply', 'new_answer']),
    );
    // The tool's result went back to the graph's model inside the graph.
    expect(JSON.stringify(requests[1]?.body?.messages)).toContain('product: 42');
    expect(result.usage.planner?.inputTokens).toBeGreaterThan(0);
  });
});
