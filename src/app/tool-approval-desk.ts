import type { ToolApprovalDecision, ToolApprovalRequest, ToolApprover } from '../types/tool.js';

/**
 * Where held tool calls wait for an answer from outside the run (a terminal prompt, a web UI): the
 * orchestrator's approver parks each call here under its call id, and `respond` releases it.
 */
export class ToolApprovalDesk {
  private readonly waiting = new Map<string, (decision: ToolApprovalDecision) => void>();

  readonly approver: ToolApprover = (request: ToolApprovalRequest, signal: AbortSignal) =>
    new Promise<ToolApprovalDecision>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(key(request.agentId, request.callId));
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(key(request.agentId, request.callId), (decision) => {
        signal.removeEventListener('abort', onAbort);
        resolve(decision);
      });
    });

  /** Releases a waiting call; false when none waits under that id. */
  respond(agentId: string, callId: string, decision: ToolApprovalDecision): boolean {
    const release = this.waiting.get(key(agentId, callId));
    if (!release) return false;
    this.waiting.delete(key(agentId, callId));
    release(decision);
    return true;
  }

  /** How many calls wait now. */
  get size(): number {
    return this.waiting.size;
  }
}

// Call ids come from the providers and are only unique per agent.
const key = (agentId: string, callId: string) => `${agentId}\u0000${callId}`;
