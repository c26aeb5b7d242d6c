import type { BackendFactory } from '../types/backend.js';
import { azureOpenAIBackend } from './azure-openai/index.js';
import { chatCompletionBackend } from './chatcompletion/index.js';
import { claudeBackend } from './claude/index.js';
import { geminiBackend } from './gemini/index.js';
import { grokBackend } from './grok/index.js';
import {
  inferenceBackend,
  lmstudioBackend,
  ollamaBackend,
  sglangBackend,
  vllmBackend,
} from './local-servers/index.js';
import { localBackend } from './local/index.js';
import { demoBackend } from './demo/index.js';
import { openAIBackend } from './openai/index.js';
import { aiSdkAgentBackend } from './external/ai-sdk-agent.js';
import { openAIAgentsBackend } from './external/openai-agents.js';
import { langGraphBackend } from './external/langgraph.js';
import { ag2Backend, externalBackend } from './external/adapter-backend.js';
import { claudeCodeBackend } from './harness/claude-code.js';
import { codexBackend } from './harness/codex.js';
import { geminiCliBackend } from './harness/gemini-cli.js';

/** Every backend massgen knows. Adding a provider is one folder plus one line here. */
export const backendFactories: readonly BackendFactory[] = [
  openAIBackend,
  claudeBackend,
  geminiBackend,
  grokBackend,
  azureOpenAIBackend,
  chatCompletionBackend,
  vllmBackend,
  sglangBackend,
  inferenceBackend,
  lmstudioBackend,
  ollamaBackend,
  localBackend,
  aiSdkAgentBackend,
  openAIAgentsBackend,
  langGraphBackend,
  ag2Backend,
  externalBackend,
  claudeCodeBackend,
  codexBackend,
  geminiCliBackend,
  demoBackend,
];

/** The factory for a config `type`, or undefined when no backend has that type. */
export function findBackendFactory(type: string): BackendFactory | undefined {
  return backendFactories.find((factory) => factory.type === type);
}

/** All known config `type`s, in registry order (for help texts and "did you mean" suggestions). */
export function backendTypes(): string[] {
  return backendFactories.map((factory) => factory.type);
}
