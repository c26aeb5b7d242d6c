import { createHmac, timingSafeEqual } from 'node:crypto';
import { isRecord } from '../util/guards.js';

/**
 * Signed jobs: whoever can write to Redis can add a job, so a worker runs a job's config only when the
 * job carries an HMAC-SHA256 made with the secret the worker shares with `massgen batch` and `massgen
 * serve`. The signature covers everything the job's data says (question, attachments, history, config
 * text, options) and the queue and job id it was added under, so no part can be changed, dropped or
 * moved to another job without the signature failing.
 */

/** The key in a job's data that holds its signature (hex); everything else in the data is signed. */
export const SIGNATURE_KEY = 'sig';

/** Signed before the data, so a signature is never valid for another use of the same secret. */
const DOMAIN = 'massgen-queue-job/1';

/**
 * JSON with object keys sorted at every level and `undefined` members left out, as `JSON.stringify`
 * leaves them out: the same text for the data the producer built and for the data the worker reads
 * back from Redis, whatever order its keys arrived in.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const members = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Why a job was refused, or null when its signature holds. */
export type SignatureProblem = 'unsigned' | 'mismatch';

/** Signs and checks jobs with one secret; the secret itself never leaves this object. */
export interface JobSigner {
  /** Where the secret came from (`MASSGEN_QUEUE_SECRET` or the file), for messages. */
  readonly source: string;
  /** The job's data with its signature added. */
  sign<T extends object>(queue: string, jobId: string, data: T): T & { sig: string };
  /** Checks data as a worker received it. */
  verify(queue: string, jobId: string, data: unknown): SignatureProblem | null;
}

/** A signer for `secret` (at least {@link MIN_QUEUE_SECRET_LENGTH} characters; see `loadQueueSecret`). */
export function createJobSigner(secret: string, source: string): JobSigner {
  const key = Buffer.from(secret, 'utf8');
  const mac = (queue: string, jobId: string, data: Record<string, unknown>): Buffer => {
    const unsigned = Object.fromEntries(Object.entries(data).filter(([name]) => name !== SIGNATURE_KEY));
    return createHmac('sha256', key)
      .update(`${DOMAIN}\n${queue}\n${jobId}\n${canonicalJson(unsigned)}`)
      .digest();
  };
  return {
    source,
    sign(queue, jobId, data) {
      // Signed as the worker will read it: what JSON keeps of the data (BullMQ stores it as JSON).
      const stored = JSON.parse(JSON.stringify(data)) as Record<string, unknown>;
      return { ...data, sig: mac(queue, jobId, stored).toString('hex') };
    },
    verify(queue, jobId, data) {
      if (!isRecord(data) || typeof data[SIGNATURE_KEY] !== 'string') return 'unsigned';
      const given = data[SIGNATURE_KEY];
      if (!/^[0-9a-f]{64}$/.test(given)) return 'mismatch';
      return timingSafeEqual(Buffer.from(given, 'hex'), mac(queue, jobId, data)) ? null : 'mismatch';
    },
  };
}

/** Shortest accepted secret: `openssl rand -hex 32` makes one of 64. */
export const MIN_QUEUE_SECRET_LENGTH = 32;
