import { parseConfig } from './parse-config.js';
import type { MassGenConfig } from './schema.js';

/**
 * The zero-key team: two agents on one local model (they share it in memory), each with its own
 * temperature so they do not simply agree with themselves.
 */
export function localDefaultConfig(model: string, options: { threads?: number } = {}): MassGenConfig {
  const backend = (temperature: number) => ({
    type: 'local',
    // Literal text: a `${` in a path must not be read as a variable.
    model: model.replaceAll('${', () => '$${'),
    temperature,
    ...(options.threads === undefined ? {} : { threads: options.threads }),
  });
  return parseConfig(
    {
      agents: [
        { id: 'local_a', backend: backend(0.3) },
        { id: 'local_b', backend: backend(0.8) },
      ],
      // Small models rarely stop improving on their own: after two answers each, they vote.
      orchestrator: { max_new_answers_per_agent: 2 },
    },
    { env: {}, source: 'local default' },
  );
}
