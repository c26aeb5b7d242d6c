export {
  createInferenceBackend,
  DEFAULT_INFERENCE_CANDIDATES,
  DEFAULT_PROBE_TIMEOUT_MS,
  inferenceBackend,
  type InferenceBackendOptions,
  type InferenceCandidate,
} from './inference-backend.js';
export { lmstudioBackend, ollamaBackend, sglangBackend, vllmBackend } from './local-server-backends.js';
export {
  LOCAL_SERVER_CAPABILITIES,
  localServerFactory,
  type LocalServerSpec,
} from './local-server-factory.js';
export { probeServer, type ProbeOptions } from './probe-server.js';
