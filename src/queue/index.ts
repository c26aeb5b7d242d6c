/**
 * Runs on a Redis queue (BullMQ): `massgen batch --queue`, `massgen serve --queue` and `massgen worker`.
 * An adapter only: it moves a run request to a worker and the run's events and result back; the run
 * itself is `runMassGen`, the same code as in process. Loaded only when `--queue` is given, so a plain
 * run never loads bullmq or ioredis.
 */
export { parseQueueLocation, connectRedis, type QueueLocation } from './redis-connection.js';
export { QueueClient, type AddOptions, type JobFinish, type QueueClientOptions } from './queue-client.js';
export { loadQueueSecret, QUEUE_SECRET_VAR } from './queue-secret.js';
export { connectProducer, type ProducerOptions } from './connect-producer.js';
export { createJobSigner, canonicalJson, type JobSigner } from './job-signature.js';
export { queueExecutor, type QueueExecutorOptions } from './queue-executor.js';
export { queueLauncher, type QueueLauncherOptions } from './queue-launcher.js';
export {
  startQueueWorker,
  DEFAULT_MAX_ATTEMPTS,
  type QueueWorker,
  type QueueWorkerOptions,
  type JobReport,
} from './queue-worker.js';
export { queueStatus, retryDeadJobs, drainQueue, type QueueStatus, type DeadJob } from './queue-admin.js';
export { redisLimiters, type RedisLimiterOptions } from './redis-rate-limiter.js';
export { readConfigPayload, assertNoSecrets, type ConfigPayload } from './config-payload.js';
export {
  RunJobDataSchema,
  RunJobResultSchema,
  RunResultSchema,
  BULL_PREFIX,
  eventsKey,
  type RunJobData,
  type RunJobResult,
} from './job-data.js';
