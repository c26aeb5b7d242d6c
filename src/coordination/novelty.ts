import type { NoveltyRequirement } from './settings.js';

const thresholds: Record<NoveltyRequirement, number | null> = {
  lenient: null,
  balanced: 0.7,
  strict: 0.5,
};

function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Word-set Jaccard similarity in [0, 1]. Two empty texts count as identical. */
export function jaccardSimilarity(a: string, b: string): number {
  const setA = wordSet(a);
  const setB = wordSet(b);
  if (setA.size === 0 && setB.size === 0) return 1;
  let shared = 0;
  for (const word of setA) if (setB.has(word)) shared++;
  return shared / (setA.size + setB.size - shared);
}

/**
 * Returns the refusal reason when `candidate` is not novel enough against the current answers,
 * or null when it may be accepted.
 */
export function noveltyRefusal(
  candidate: string,
  current: readonly { anonymousId: string; content: string }[],
  requirement: NoveltyRequirement,
): string | null {
  const trimmed = candidate.trim();
  for (const answer of current) {
    if (answer.content.trim() === trimmed) {
      return `This answer is identical to the current answer of ${answer.anonymousId}. Vote for it instead, or submit a genuinely different answer.`;
    }
  }
  const threshold = thresholds[requirement];
  if (threshold === null) return null;
  for (const answer of current) {
    const similarity = jaccardSimilarity(trimmed, answer.content);
    if (similarity > threshold) {
      return `This answer is too similar to the current answer of ${answer.anonymousId} (${Math.round(similarity * 100)}% word overlap; the ${requirement} novelty requirement allows at most ${Math.round(threshold * 100)}%). Vote for an existing answer, or submit one that differs substantially.`;
    }
  }
  return null;
}
