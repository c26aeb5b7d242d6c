import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../config/index.js';
import {
  bestOfNSamples,
  matchedMaxTokens,
  ownMaxTokens,
  separateSystems,
  writeOneAgentConfig,
} from './separate-baselines.js';

describe('separate-call baselines', () => {
  it('best-of-n takes floor(team tokens / first-answer tokens) samples, 1 to 8; the team size without a cost', () => {
    expect(bestOfNSamples(1000, 300, 3)).toBe(3);
    expect(bestOfNSamples(1000, 50, 3)).toBe(8);
    expect(bestOfNSamples(100, 300, 3)).toBe(1);
    expect(bestOfNSamples(1000, null, 3)).toBe(3);
    expect(bestOfNSamples(0, 300, 2)).toBe(2);
  });

  it("max_tokens is the team's tokens shared among the calls, never above the agent's own", () => {
    expect(matchedMaxTokens(1000, 1, undefined)).toBe(1000);
    expect(matchedMaxTokens(1000, 3, undefined)).toBe(333);
    expect(matchedMaxTokens(1000, 3, 200)).toBe(200);
    expect(matchedMaxTokens(0, 3, undefined)).toBeNull();
    expect(matchedMaxTokens(0, 3, 64)).toBe(64);
  });

  it('the one-agent config keeps the top level and the agent entry as written, with max_tokens', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'massgen-sep-'));
    const team = path.join(dir, 'team.yaml');
    writeFileSync(
      team,
      [
        'agents:',
        '  - id: a',
        '    backend: { type: chatcompletion, model: m1, base_url: "http://127.0.0.1:9/v1", api_key: "${KEY}" }',
        '  - id: b',
        '    backend: { type: chatcompletion, model: m2, base_url: "http://127.0.0.1:9/v1", max_tokens: 50 }',
        'ui: { logging_enabled: false }',
        '',
      ].join('\n'),
    );
    expect(ownMaxTokens(team, 1)).toBe(50);
    const out = path.join(dir, 'one.json');
    writeOneAgentConfig(team, 0, 123, out);
    const raw = JSON.parse(readFileSync(out, 'utf8')) as { agents: { backend: Record<string, unknown> }[] };
    expect(raw.agents).toHaveLength(1);
    expect(raw.agents[0]!.backend).toMatchObject({ model: 'm1', max_tokens: 123, api_key: '${KEY}' });
    const config = loadConfigFile(out, { env: { KEY: 'k' }, cwd: dir });
    expect(config.agents.map((a) => a.id)).toEqual(['a']);
    expect(config.ui.logging_enabled).toBe(false);
  });

  it('names one system per agent for single-call, the first agent for best-of-n, and refuses unknown agents', () => {
    const names = separateSystems([{ kind: 'single-call' }, { kind: 'best-of-n' }], ['a', 'b'], '/o').map(
      (s) => s.name,
    );
    expect(names).toEqual(['single-call:a', 'single-call:b', 'best-of-n:a']);
    expect(() => separateSystems([{ kind: 'best-of-n', agent: 'z' }], ['a'], '/o')).toThrow(/no agent "z"/);
  });
});
