import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../types/errors.js';
import { canonicalJson, createJobSigner } from './job-signature.js';
import { loadQueueSecret } from './queue-secret.js';

const SECRET = 'a'.repeat(64);
const signer = createJobSigner(SECRET, 'test');
const data = {
  v: 1,
  question: 'What is 6 x 7?',
  attachments: [{ name: 'notes.txt', text: 'six, seven' }],
  config: { name: 'team.yaml', text: 'agents: []\n' },
  stream: false,
  timeoutMs: 60_000,
  batch: { key: 'abc', id: 'q1' },
};
/** What a worker reads back: the data through JSON, as BullMQ stores it. */
const stored = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

describe('job signatures', () => {
  it('canonical JSON does not depend on key order, drops undefined members like JSON does', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it('a signed job verifies as the worker reads it back, whatever the key order', () => {
    const signed = stored(signer.sign('massgen', 'b-1-q1', { ...data, logging: undefined }));
    expect(signer.verify('massgen', 'b-1-q1', signed)).toBeNull();
    const reordered = Object.fromEntries(Object.entries(signed).reverse());
    expect(signer.verify('massgen', 'b-1-q1', reordered)).toBeNull();
  });

  it('any change to the data, or another job id or queue, breaks the signature', () => {
    const signed = stored(signer.sign('massgen', 'b-1-q1', data));
    const changes: Record<string, unknown>[] = [
      { ...signed, question: 'Run rm -rf ~' },
      { ...signed, config: { name: 'team.yaml', text: 'agents: [evil]\n' } },
      { ...signed, timeoutMs: 1 },
      { ...signed, logging: true }, // a key added
      Object.fromEntries(Object.entries(signed).filter(([key]) => key !== 'attachments')), // one dropped
      { ...signed, batch: { key: 'abc', id: 'q2' } },
    ];
    for (const changed of changes) expect(signer.verify('massgen', 'b-1-q1', changed)).toBe('mismatch');
    expect(signer.verify('massgen', 'b-1-q2', signed)).toBe('mismatch');
    expect(signer.verify('other', 'b-1-q1', signed)).toBe('mismatch');
  });

  it('unsigned, signed with another secret, or a malformed signature: refused', () => {
    expect(signer.verify('massgen', 'j', stored(data))).toBe('unsigned');
    expect(signer.verify('massgen', 'j', 'text')).toBe('unsigned');
    expect(signer.verify('massgen', 'j', { ...data, sig: 42 })).toBe('unsigned');
    const other = createJobSigner('b'.repeat(64), 'other');
    expect(signer.verify('massgen', 'j', stored(other.sign('massgen', 'j', data)))).toBe('mismatch');
    expect(signer.verify('massgen', 'j', { ...data, sig: 'zz' })).toBe('mismatch');
    expect(signer.verify('massgen', 'j', { ...data, sig: '0'.repeat(64) })).toBe('mismatch');
  });

  it('the signature never holds the secret', () => {
    expect(JSON.stringify(signer.sign('massgen', 'j', data))).not.toContain(SECRET);
    expect(JSON.stringify(signer)).not.toContain(SECRET);
  });
});

describe('the queue secret', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('comes from --queue-secret-file (whitespace around it ignored), else MASSGEN_QUEUE_SECRET, else none', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-secret-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'secret'), `${SECRET}\n`);
    const fromFile = loadQueueSecret({ file: 'secret', env: {}, cwd: dir });
    const fromEnv = loadQueueSecret({ env: { MASSGEN_QUEUE_SECRET: SECRET }, cwd: dir });
    expect(fromFile?.source).toBe(path.join(dir, 'secret'));
    expect(fromEnv?.source).toBe('MASSGEN_QUEUE_SECRET');
    // Both are the same secret: one signs what the other checks.
    expect(fromEnv?.verify('q', 'j', stored(fromFile?.sign('q', 'j', data)))).toBeNull();
    expect(loadQueueSecret({ env: {}, cwd: dir })).toBeNull();
  });

  it('a short secret or an unreadable file is one error naming the variable or the file', () => {
    expect(() => loadQueueSecret({ env: { MASSGEN_QUEUE_SECRET: 'short' }, cwd: '/' })).toThrow(
      /^MASSGEN_QUEUE_SECRET: the queue secret must be at least 32 characters/,
    );
    let error: unknown;
    try {
      loadQueueSecret({ file: '/nonexistent/secret', env: {}, cwd: '/' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      '--queue-secret-file /nonexistent/secret: cannot read it (ENOENT)',
    );
    expect((error as ConfigError).hint).toContain('openssl rand -hex 32');
  });
});
