import type { ToolEventInput } from '../types/tool.js';

/** Where one agent's subagent events and costs go (its tool registry's lifecycle). */
export interface AgentSink {
  emit(event: ToolEventInput): void;
  addCost(dollars: number): void;
}

/**
 * The agents' sinks, keeping what comes before an agent's sink is attached: subagents re-attached from
 * a previous turn's checkpoints start (and may spend) before the agents' first step, and nothing they
 * report may be lost.
 */
export class AgentSinks {
  private readonly sinks = new Map<string, AgentSink>();
  private readonly pending = new Map<string, { events: ToolEventInput[]; dollars: number }>();

  attach(agentId: string, sink: AgentSink): void {
    this.sinks.set(agentId, sink);
    const held = this.pending.get(agentId);
    if (!held) return;
    this.pending.delete(agentId);
    for (const event of held.events) sink.emit(event);
    if (held.dollars > 0) sink.addCost(held.dollars);
  }

  private held(agentId: string): { events: ToolEventInput[]; dollars: number } {
    let held = this.pending.get(agentId);
    if (!held) this.pending.set(agentId, (held = { events: [], dollars: 0 }));
    return held;
  }

  emit(agentId: string, event: ToolEventInput): void {
    const sink = this.sinks.get(agentId);
    if (sink) sink.emit(event);
    else this.held(agentId).events.push(event);
  }

  addCost(agentId: string, dollars: number): void {
    const sink = this.sinks.get(agentId);
    if (sink) sink.addCost(dollars);
    else this.held(agentId).dollars += dollars;
  }
}
