import type { BackendFactory } from '../types/backend.js';
import { chatCompletionBackend } from './chatcompletion/index.js';

/** Every backend massgen knows. Adding a provider is one folder plus one line here. */
export const backendFactories: readonly BackendFactory[] = [chatCompletionBackend];

/** The factory for a config `type`, or undefined when no backend has that type. */
export function findBackendFactory(type: string): BackendFactory | undefined {
  return backendFactories.find((factory) => factory.type === type);
}

/** All known config `type`s, in registry order (for help texts and "did you mean" suggestions). */
export function backendTypes(): string[] {
  return backendFactories.map((factory) => factory.type);
}
