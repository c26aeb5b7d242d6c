import { describe, expect, it } from 'vitest';
import { createSecretScrubber } from './secret-scrubber.js';

describe('createSecretScrubber', () => {
  const scrubber = createSecretScrubber(['sk-live-123456', 'sk-live-123456-extended', 'abc']);

  it('masks every occurrence, the longest secret first, and ignores values too short to be secrets', () => {
    expect(scrubber.text('key sk-live-123456-extended and sk-live-123456; abc stays')).toBe(
      'key *** and ***; abc stays',
    );
    expect(scrubber.size).toBe(2);
  });

  it('masks the password of a URL but keeps the user and host', () => {
    expect(scrubber.text('GET http://alice:hunter2@127.0.0.1:9/v1 failed')).toBe(
      'GET http://alice:***@127.0.0.1:9/v1 failed',
    );
    expect(scrubber.text('redis://:pw0rd@localhost:6379')).toBe('redis://:***@localhost:6379');
    expect(scrubber.text('http://127.0.0.1:8080/path@x')).toBe('http://127.0.0.1:8080/path@x');
  });

  it('scrubs deeply and returns the same object when nothing changed', () => {
    const clean = { type: 'agent.text.delta', delta: 'hello', nested: [{ a: 1 }] };
    expect(scrubber.deep(clean)).toBe(clean);
    const dirty = {
      type: 'tool.call.finished',
      result: 'token=sk-live-123456',
      list: ['ok', 'sk-live-123456'],
    };
    const out = scrubber.deep(dirty);
    expect(out).toEqual({ type: 'tool.call.finished', result: 'token=***', list: ['ok', '***'] });
    expect(dirty.result).toBe('token=sk-live-123456');
  });

  it('leaves class instances alone and survives cycles', () => {
    const error = new Error('sk-live-123456');
    const cyclic: Record<string, unknown> = { secret: 'sk-live-123456' };
    cyclic['self'] = cyclic;
    expect(scrubber.deep({ error }).error).toBe(error);
    const out = scrubber.deep(cyclic);
    expect(out['secret']).toBe('***');
  });
});
