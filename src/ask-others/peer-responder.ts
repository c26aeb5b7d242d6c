import type { Backend } from '../types/backend.js';
import { costOf, type ModelPrice } from '../types/usage.js';
import type { PeerAnswer, PeerResponder } from './ask-others-desk.js';

/** What answering as a peer needs of it: its model, its system message, its price. */
export interface PeerModel {
  id: string;
  backend: Backend;
  systemMessage?: string;
  price?: ModelPrice;
}

/**
 * Answers as a peer with one call of the peer's own model, outside its turn (its conversation is not
 * touched, so its work goes on): its system message, its work so far, the question; no tools. The
 * cost is the peer's, from its price.
 */
export function peerResponder(peers: () => readonly PeerModel[]): PeerResponder {
  return async (peerId, question, context, signal): Promise<PeerAnswer> => {
    const peer = peers().find((p) => p.id === peerId);
    if (!peer) throw new Error(`no agent ${peerId} in this run`);
    let text = '';
    let costUsd = 0;
    const stream = peer.backend.stream({
      messages: [
        ...(peer.systemMessage ? [{ role: 'system' as const, content: peer.systemMessage }] : []),
        { role: 'user', content: `${context}\n\nQuestion: ${question}` },
      ],
      tools: [],
      toolChoice: 'none',
      signal,
    });
    for await (const part of stream) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'finish') costUsd = costOf(part.usage, peer.price);
    }
    if (text.trim() === '') throw new Error('the answer was empty');
    return { text, costUsd };
  };
}
