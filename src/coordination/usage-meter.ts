import { addUsage, costOf, emptyUsage, type ModelPrice, type TokenUsage } from '../types/usage.js';

/** Tokens and dollars per agent over one run, and the run's total (the `max_cost_usd` budget). */
export class UsageMeter {
  private readonly usage = new Map<string, TokenUsage>();
  private readonly cost = new Map<string, number>();
  private spent = 0;

  constructor(agentIds: readonly string[]) {
    for (const id of agentIds) {
      this.usage.set(id, emptyUsage());
      this.cost.set(id, 0);
    }
  }

  /** Records one model call's usage; returns its cost in dollars. */
  add(agentId: string, usage: TokenUsage, price: ModelPrice | undefined): number {
    this.usage.set(agentId, addUsage(this.usage.get(agentId) ?? emptyUsage(), usage));
    const cost = costOf(usage, price);
    this.cost.set(agentId, (this.cost.get(agentId) ?? 0) + cost);
    this.spent += cost;
    return cost;
  }

  /** Records dollars an agent's tool spent at a provider (media generation). */
  addCost(agentId: string, dollars: number): void {
    this.cost.set(agentId, (this.cost.get(agentId) ?? 0) + dollars);
    this.spent += dollars;
  }

  /** Dollars spent by every agent together. */
  get totalCost(): number {
    return this.spent;
  }

  /** Per-agent usage and cost, as `run.finished` reports them. */
  totals(): { usage: Record<string, TokenUsage>; costUsd: Record<string, number> } {
    return { usage: Object.fromEntries(this.usage), costUsd: Object.fromEntries(this.cost) };
  }
}
