import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { ToolProvider, ToolProviderEvent } from '../tools/tool-provider.js';
import type { RunEvent } from '../types/events.js';
import type { ToolResult } from '../types/tool.js';
import { PeerTranscripts } from './peer-transcripts.js';

/** The longest question or answer kept, in characters. */
export const MAX_QUESTION_CHARS = 4000;

/** One peer's answer to a question: its text and what the extra model call cost. */
export interface PeerAnswer {
  text: string;
  costUsd: number;
}

/**
 * Answers a question as `peerId`, from its own model with what it has done so far (`context`): one
 * extra call, which must not disturb the peer's turn. The app gives this (`peer-responder.ts`).
 */
export type PeerResponder = (
  peerId: string,
  question: string,
  context: string,
  signal: AbortSignal,
) => Promise<PeerAnswer>;

export interface AskOthersOptions {
  mode: 'agents' | 'human';
  /** `broadcast_timeout`, in milliseconds. */
  timeoutMs: number;
  /** `max_broadcasts_per_agent`. */
  maxPerAgent: number;
  /** Every agent of the run, by real id. */
  agentIds: readonly string[];
  /** Agents mode: how a peer answers. */
  respond?: PeerResponder;
  now?: () => number;
}

/** Why a human answer was not taken. */
export type AnswerRefusal = 'unknown_question' | 'invalid_text';

interface PendingHuman {
  askerId: string;
  settle: (answer: { text: string; source: string } | null) => void;
}

/**
 * One run's `ask_others` (docs/ask-others.md): the tool for each agent, the count per agent, the
 * questions waiting for the human, and what each peer has done so far (from the run's events, so a
 * peer answers with its own history). Every question and answer is reported as an event by the
 * asker's registry.
 */
export class AskOthersDesk {
  private readonly asked = new Map<string, number>();
  private readonly waiting = new Map<string, PendingHuman>();
  private readonly transcripts = new PeerTranscripts();
  private readonly now: () => number;

  constructor(private readonly options: AskOthersOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Feeds the run's events in (the peers' text and answers, the anonymous ids). */
  observe(event: RunEvent): void {
    this.transcripts.observe(event);
  }

  /** Questions waiting for the human: id and who asked. */
  pendingQuestions(): { questionId: string; agentId: string }[] {
    return [...this.waiting].map(([questionId, p]) => ({ questionId, agentId: p.askerId }));
  }

  /**
   * The human's answer to a waiting question (the web UI, the live view, a library caller). The text
   * is trimmed; the asker's next tool result carries it, and the run's scrubber masks secrets in it.
   */
  answer(
    questionId: string,
    text: string,
    source = 'api',
  ): { accepted: true } | { accepted: false; reason: AnswerRefusal; message: string } {
    const pending = this.waiting.get(questionId);
    if (!pending)
      return {
        accepted: false,
        reason: 'unknown_question',
        message: `no question ${questionId.slice(0, 80)} is waiting for an answer`,
      };
    const trimmed = text.trim();
    if (trimmed === '' || trimmed.length > MAX_QUESTION_CHARS)
      return {
        accepted: false,
        reason: 'invalid_text',
        message: `an answer has 1 to ${MAX_QUESTION_CHARS} characters`,
      };
    this.waiting.delete(questionId);
    pending.settle({ text: trimmed, source });
    return { accepted: true };
  }

  /** The `ask_others` tool of one agent. */
  toolProvider(agentId: string): ToolProvider {
    let report: (event: ToolProviderEvent) => void = () => {};
    const peers = () => this.options.agentIds.filter((id) => id !== agentId);
    const tool = defineTool({
      name: 'ask_others',
      description:
        this.options.mode === 'human'
          ? 'Ask the person running this task a question and wait for the answer (or the timeout). Use it when a decision is theirs to make.'
          : "Ask the other agents a question (all of them, or target_agents by their anonymous ids) and get each one's answer, written from its own work so far. Their work is not interrupted.",
      parameters: z.object({
        question: z.string(),
        target_agents: z.array(z.string()).max(100).optional(),
      }),
      execute: async ({ question, target_agents }, context) => {
        const text = question.trim();
        if (text === '' || text.length > MAX_QUESTION_CHARS)
          throw new Error(`a question has 1 to ${MAX_QUESTION_CHARS} characters`);
        const count = this.asked.get(agentId) ?? 0;
        if (count >= this.options.maxPerAgent)
          throw new Error(
            `you have asked ${count} questions, the most allowed in this run (max_broadcasts_per_agent): go on with what you know`,
          );
        const targets =
          this.options.mode === 'human' ? [] : this.resolveTargets(target_agents, peers(), agentId);
        this.asked.set(agentId, count + 1);
        const questionId = randomUUID();
        const deadline = this.now() + this.options.timeoutMs;
        report({
          type: 'ask_others.asked',
          questionId,
          mode: this.options.mode,
          question: text,
          targets,
          deadline,
        });
        const timeout = AbortSignal.timeout(this.options.timeoutMs);
        const signal = AbortSignal.any([context.signal, timeout]);
        if (this.options.mode === 'human')
          return { content: await this.askHuman(agentId, questionId, signal, report) };
        return this.askPeers(agentId, questionId, text, targets, signal, report);
      },
    });
    const definition = { name: tool.name, description: tool.description, parameters: tool.parameters };
    return {
      name: 'ask_others',
      tools: () => [definition],
      // ask_others waits for answers up to broadcast_timeout, whatever the generic tool timeout is.
      minTimeoutMs: () => this.options.timeoutMs + 5_000,
      async start(context) {
        report = context.report;
      },
      async call(name, args, context): Promise<ToolResult> {
        const parsed = tool.parse(args);
        if (!parsed.ok) return { content: `Invalid arguments for ${name}: ${parsed.message}`, isError: true };
        // The peers' model calls are theirs: their cost goes to them (peerCosts), not to the asker.
        return (await tool.execute(parsed.value, context)) as ToolResult;
      },
      close: async () => {},
    };
  }

  /** Real ids of the peers asked: the named anonymous ids (or real ids), or every peer. */
  private resolveTargets(named: readonly string[] | undefined, peers: string[], askerId: string): string[] {
    if (!named || named.length === 0) {
      if (peers.length === 0) throw new Error('there are no other agents to ask');
      return peers;
    }
    const targets = named.map((name) => {
      const id = this.transcripts.realId(name) ?? name;
      if (id === askerId) throw new Error('you cannot ask yourself');
      if (!peers.includes(id)) {
        const known = peers.map((p) => this.transcripts.anonymousId(p) ?? p);
        throw new Error(`no agent "${name.slice(0, 80)}" to ask (agents: ${known.join(', ')})`);
      }
      return id;
    });
    return [...new Set(targets)];
  }

  private async askPeers(
    askerId: string,
    questionId: string,
    question: string,
    targets: string[],
    signal: AbortSignal,
    report: (event: ToolProviderEvent) => void,
  ): Promise<ToolResult> {
    const respond = this.options.respond;
    if (!respond) throw new Error('ask_others has no way to reach the other agents in this run');
    const peerCosts: Record<string, number> = {};
    const answers = await Promise.all(
      targets.map(async (peer) => {
        const label = this.transcripts.anonymousId(peer) ?? peer;
        try {
          const answer = await respond(peer, question, this.transcripts.contextOf(peer, askerId), signal);
          peerCosts[peer] = answer.costUsd;
          const text = answer.text.trim().slice(0, MAX_QUESTION_CHARS);
          report({ type: 'ask_others.answered', questionId, from: peer, answer: text, outcome: 'answered' });
          return `${label}: ${text}`;
        } catch (error) {
          const outcome = signal.aborted ? (outcomeOfAbort(signal) ?? 'failed') : 'failed';
          report({ type: 'ask_others.answered', questionId, from: peer, answer: null, outcome });
          return `${label}: (no answer: ${outcome === 'timeout' ? 'timed out' : error instanceof Error ? error.message : 'failed'})`;
        }
      }),
    );
    return { content: answers.join('\n\n'), peerCosts };
  }

  private askHuman(
    askerId: string,
    questionId: string,
    signal: AbortSignal,
    report: (event: ToolProviderEvent) => void,
  ): Promise<string> {
    return new Promise((resolve) => {
      const settle = (answer: { text: string; source: string } | null) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(questionId);
        if (answer) {
          report({
            type: 'ask_others.answered',
            questionId,
            from: 'human',
            answer: answer.text,
            outcome: 'answered',
            source: answer.source,
          });
          resolve(`The human answered: ${answer.text}`);
          return;
        }
        const outcome = outcomeOfAbort(signal) ?? 'cancelled';
        report({ type: 'ask_others.answered', questionId, from: null, answer: null, outcome });
        resolve(
          outcome === 'timeout'
            ? 'No answer came in time: decide yourself and say what you assumed.'
            : 'The question was withdrawn.',
        );
      };
      const onAbort = () => settle(null);
      this.waiting.set(questionId, { askerId, settle });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** `timeout` when the signal's reason is a timeout, `cancelled` for another abort, null while not aborted. */
function outcomeOfAbort(signal: AbortSignal): 'timeout' | 'cancelled' | null {
  if (!signal.aborted) return null;
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === 'TimeoutError' ? 'timeout' : 'cancelled';
}
