// The rule lives in util: memory's local embeddings use it too.
export { defaultThreads, MAX_DEFAULT_THREADS } from '../../util/default-threads.js';
