import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { RunEvent, RunEventInput } from '../types/events.js';
import { createRunLogWriter, type RunLogWriter } from './log-writer.js';

/** Test helpers shared by the log-writer tests (excluded from the build). */

export const T0 = new Date(2025, 4, 6, 7, 8, 9, 123).getTime();
const tempDirs: string[] = [];

/** A fresh temporary folder, removed after the test. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-logging-'));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Stamps runId, seq and ts the way the orchestrator does; `at` is milliseconds after T0. */
export function stamper(runId = 'run-1'): (at: number, input: RunEventInput) => RunEvent {
  let seq = 0;
  return (at, input) => ({ ...input, runId, seq: seq++, ts: T0 + at }) as RunEvent;
}

export const agents = [
  { agentId: 'alice', anonymousId: 'agent1', backendType: 'openai', model: 'gpt-a' },
  { agentId: 'bob', anonymousId: 'agent2', backendType: 'claude', model: 'claude-b' },
  { agentId: 'carol', anonymousId: 'agent3', backendType: 'gemini', model: 'gemini-c' },
];

/** Every file under `dir`, relative, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

export const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

export async function newWriter(rootDir: string, startedAt = new Date(T0)): Promise<RunLogWriter> {
  return createRunLogWriter({
    rootDir,
    startedAt,
    metadata: {
      config: { agents: [{ id: 'alice', backend: { type: 'openai', api_key: '***' } }] },
      versions: { massgen: '0.1.0', node: 'v20' },
      extra: { note: 'test' },
    },
  });
}
