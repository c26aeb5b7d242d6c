import { ConfigValidationError, type ConfigDiagnostic } from './diagnostics.js';
import { parseConfig } from './parse-config.js';

/** Test helpers shared by the config tests (excluded from the build). */

export const backend = { type: 'chatcompletion', model: 'gpt-4o-mini' };

export function diagnosticsOf(raw: unknown, env: Record<string, string> = {}): ConfigDiagnostic[] {
  try {
    parseConfig(raw, { env });
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.diagnostics;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

export function messagesOf(raw: unknown, env: Record<string, string> = {}): string[] {
  return diagnosticsOf(raw, env).map((d) => (d.hint === undefined ? d.message : `${d.message} — ${d.hint}`));
}
