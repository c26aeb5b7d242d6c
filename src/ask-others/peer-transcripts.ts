import type { RunEvent } from '../types/events.js';

/** The most of a peer's recent text kept for its context, in characters. */
const RECENT_CHARS = 6000;

interface PeerWork {
  recent: string;
  answer: string | null;
}

/**
 * What each agent has done so far in the run, as the event stream shows it: the text it wrote (the
 * last few thousand characters) and its latest answer. A peer answers `ask_others` from this, so its
 * answer reflects its own work without touching its running turn. Also maps real and anonymous ids:
 * models name each other only by anonymous id.
 */
export class PeerTranscripts {
  private question = '';
  private readonly work = new Map<string, PeerWork>();
  private readonly anonymous = new Map<string, string>();

  observe(event: RunEvent): void {
    switch (event.type) {
      case 'run.started':
        this.question = event.question;
        for (const agent of event.agents) this.anonymous.set(agent.agentId, agent.anonymousId);
        return;
      case 'agent.text.delta':
        if (event.phase !== 'coordination' || event.kind !== 'text') return;
        this.update(event.agentId, (w) => ({ ...w, recent: (w.recent + event.text).slice(-RECENT_CHARS) }));
        return;
      case 'answer.submitted':
        this.update(event.agentId, (w) => ({ ...w, answer: event.content }));
        return;
      default:
        return;
    }
  }

  anonymousId(realId: string): string | undefined {
    return this.anonymous.get(realId);
  }

  realId(anonymousId: string): string | undefined {
    for (const [real, anon] of this.anonymous) if (anon === anonymousId) return real;
    return undefined;
  }

  /** The peer's work so far, as the context of its answer (who asks is named by anonymous id). */
  contextOf(peerId: string, askerId: string): string {
    const work = this.work.get(peerId);
    const asker = this.anonymous.get(askerId) ?? 'another agent';
    return [
      `The task the team is working on: ${this.question}`,
      work?.answer ? `Your latest answer so far:\n${work.answer}` : 'You have not submitted an answer yet.',
      work?.recent ? `What you wrote most recently:\n${work.recent}` : '',
      `${asker} asks you the question below while you work. Answer it briefly from your own work so far; you cannot use tools now.`,
    ]
      .filter((part) => part !== '')
      .join('\n\n');
  }

  private update(agentId: string, patch: (w: PeerWork) => PeerWork): void {
    this.work.set(agentId, patch(this.work.get(agentId) ?? { recent: '', answer: null }));
  }
}
