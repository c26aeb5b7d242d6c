/** A message the run accepted from the user. */
export interface StoredMessage {
  /** The seq of its `human.message` event. */
  seq: number;
  text: string;
  /** Agent index, or null for every agent. */
  target: number | null;
}

/** The messages a run accepted, and which agent has read which. */
export class HumanInbox {
  private readonly messages: StoredMessage[] = [];
  private readonly read = new Map<number, Set<number>>();

  add(seq: number, text: string, target: number | null): void {
    this.messages.push({ seq, text, target });
  }

  private forAgent(agentIndex: number): StoredMessage[] {
    return this.messages.filter((m) => m.target === null || m.target === agentIndex);
  }

  private readBy(agentIndex: number): Set<number> {
    let seqs = this.read.get(agentIndex);
    if (!seqs) this.read.set(agentIndex, (seqs = new Set()));
    return seqs;
  }

  /** Messages for this agent it has not read yet, oldest first. */
  pending(agentIndex: number): readonly StoredMessage[] {
    const read = this.readBy(agentIndex);
    return this.forAgent(agentIndex).filter((m) => !read.has(m.seq));
  }

  hasPending(agentIndex: number): boolean {
    return this.pending(agentIndex).length > 0;
  }

  /** Messages this agent has read, oldest first. */
  delivered(agentIndex: number): readonly StoredMessage[] {
    const read = this.readBy(agentIndex);
    return this.forAgent(agentIndex).filter((m) => read.has(m.seq));
  }

  markRead(agentIndex: number, seq: number): void {
    this.readBy(agentIndex).add(seq);
  }
}
