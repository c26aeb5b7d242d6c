import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { ExecutionMetadataDocument } from './metadata-document.js';
import { MetadataYaml } from './metadata-document.js';

const usage = { input_tokens: 1, output_tokens: 2, reasoning_tokens: 0, cached_input_tokens: 0 };

const ids = Array.from({ length: 40 }, (_, i) => `agent-${i}: "quoted"`);
/** The run's config and `extra`: the same for every write of one run. */
const config = {
  agents: ids.map((id) => ({ id, backend: { type: 'openai', api_key: '***', tools: [], options: {} } })),
  orchestrator: { timeout: 1800, list: ['- not a list item', 'yes', 'null', ''] },
};
const extra = { cwd: '/tmp/a dir: with colon' };

function document(status: string, agents: number): ExecutionMetadataDocument {
  const present = ids.slice(0, agents);
  return {
    run_id: 'run-1',
    question: 'multi\nline: question # with a hash',
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: status === 'running' ? null : '2025-01-01T00:00:09.000Z',
    duration_seconds: 9,
    status,
    exit_code: status === 'running' ? null : 0,
    winner: null,
    winner_label: null,
    coordination_end_reason: null,
    final_answer_file: null,
    error: null,
    token_usage: { agents: Object.fromEntries(present.map((id) => [id, { ...usage }])), total: usage },
    cost_usd: { agents: Object.fromEntries(present.map((id) => [id, null])), total: 0 },
    versions: { massgen: '0.1.0' },
    config,
    extra,
  };
}

describe('MetadataYaml', () => {
  it('writes what stringifying the whole document writes, on the first and on later renders', () => {
    const yaml = new MetadataYaml();
    for (const doc of [document('running', 0), document('completed', 3), document('failed', 40)])
      expect(yaml.render(doc)).toBe(stringify(doc, { lineWidth: 0 }));
  });
});
