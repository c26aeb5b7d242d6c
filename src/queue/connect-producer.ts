import type { Env } from '../app/essentials.js';
import { QueueClient } from './queue-client.js';
import { loadQueueSecret, QUEUE_SECRET_VAR } from './queue-secret.js';
import { parseQueueLocation } from './redis-connection.js';

/** Where `massgen batch` or `massgen serve` puts its jobs, and how it signs them. */
export interface ProducerOptions {
  queue: string;
  queueName: string;
  /** `--queue-secret-file`; without it, `MASSGEN_QUEUE_SECRET` from `env`. */
  queueSecretFile?: string | undefined;
  env: Env;
  cwd: string;
  /** Listen for jobs ending (a batch does; a server follows each job's stream instead). */
  events?: boolean;
  /** Redis unreachable, back, or back without its data — and jobs going unsigned: one line each. */
  onNotice: (line: string) => void;
}

/**
 * Connects the producer side of a queue with its signer (one clear error when Redis is not there or
 * the secret is unusable). Without a secret its jobs go unsigned, which it says: only workers started
 * with their own `--config` run them.
 */
export async function connectProducer(options: ProducerOptions): Promise<QueueClient> {
  const location = parseQueueLocation(options.queue, options.queueName);
  const signer = loadQueueSecret({
    env: options.env,
    cwd: options.cwd,
    ...(options.queueSecretFile === undefined ? {} : { file: options.queueSecretFile }),
  });
  const client = await QueueClient.connect(location, {
    signer,
    onNotice: options.onNotice,
    ...(options.events ? { events: true } : {}),
  });
  if (!signer)
    options.onNotice(
      `jobs go unsigned (no ${QUEUE_SECRET_VAR} or --queue-secret-file): only workers started with --config run them`,
    );
  return client;
}
