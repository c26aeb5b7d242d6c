import type { BackendFactory } from '../../types/backend.js';
import { localServerFactory } from './local-server-factory.js';

/** vLLM's OpenAI-compatible server (`vllm serve <model>`, port 8000). */
export const vllmBackend: BackendFactory = localServerFactory({
  type: 'vllm',
  description: 'vLLM OpenAI-compatible server (default http://localhost:8000/v1)',
  defaultBaseUrl: 'http://localhost:8000/v1',
});

/** SGLang's OpenAI-compatible server (`python -m sglang.launch_server`, port 30000). */
export const sglangBackend: BackendFactory = localServerFactory({
  type: 'sglang',
  description: 'SGLang OpenAI-compatible server (default http://localhost:30000/v1)',
  defaultBaseUrl: 'http://localhost:30000/v1',
});

/** LM Studio's local server (port 1234). */
export const lmstudioBackend: BackendFactory = localServerFactory({
  type: 'lmstudio',
  description: 'LM Studio local server (default http://localhost:1234/v1)',
  defaultBaseUrl: 'http://localhost:1234/v1',
});

/** Ollama's OpenAI-compatible endpoint (port 11434). */
export const ollamaBackend: BackendFactory = localServerFactory({
  type: 'ollama',
  description: 'Ollama OpenAI-compatible endpoint (default http://localhost:11434/v1)',
  defaultBaseUrl: 'http://localhost:11434/v1',
});
