import { describe, expect, it } from 'vitest';
import { sharedModel } from './shared-models.js';

describe('sharedModel', () => {
  it('builds one model per distinct key and hands it to every agent with that key', () => {
    let built = 0;
    const make = () => ({ built: ++built }) as never;
    const a = sharedModel({ url: 'http://127.0.0.1:1', model: 'm' }, make);
    const b = sharedModel({ url: 'http://127.0.0.1:1', model: 'm' }, make);
    const c = sharedModel({ url: 'http://127.0.0.1:1', model: 'other' }, make);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(built).toBe(2);
  });

  it('keeps at most 64 models, dropping the oldest', () => {
    let built = 0;
    const make = () => ({ built: ++built }) as never;
    const first = sharedModel({ cap: 0 }, make);
    for (let i = 1; i <= 64; i++) sharedModel({ cap: i }, make);
    expect(sharedModel({ cap: 0 }, make)).not.toBe(first);
  });
});
