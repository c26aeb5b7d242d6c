import { describe, expect, it } from 'vitest';
import { cliV8Flags, type CliV8Context } from './v8-flags.js';

const context = (overrides: Partial<CliV8Context> = {}): CliV8Context => ({
  execArgv: [],
  nodeOptions: undefined,
  nodeVersion: '20.19.0',
  ...overrides,
});

describe('cliV8Flags', () => {
  const wasm = '--wasm-tiering-budget=2147483647';
  const heap = '--heap-growing-percent=50';

  it('keeps the wasm HTTP parser on the baseline tier and, on Node 20, the old generation at 1.5× its live size', () => {
    expect(cliV8Flags(context())).toEqual([wasm, heap]);
    expect(cliV8Flags(context({ nodeVersion: '22.23.0' }))).toEqual([wasm]);
  });

  it('leaves a wasm tiering setting the user chose, on the command line or in NODE_OPTIONS', () => {
    expect(cliV8Flags(context({ execArgv: ['--liftoff-only'] }))).toEqual([heap]);
    expect(cliV8Flags(context({ nodeOptions: '--wasm-tiering-budget=5' }))).toEqual([heap]);
    expect(cliV8Flags(context({ nodeOptions: '--no-wasm-dynamic-tiering' }))).toEqual([heap]);
  });

  it('leaves a heap growth or old-space setting the user chose', () => {
    expect(cliV8Flags(context({ execArgv: ['--heap-growing-percent=10'] }))).toEqual([wasm]);
    expect(cliV8Flags(context({ nodeOptions: '--max-old-space-size=4096' }))).toEqual([wasm]);
    expect(cliV8Flags(context({ nodeOptions: '--optimize-for-size' }))).toEqual([wasm]);
  });

  it('does not touch the young generation: a size in NODE_OPTIONS is V8’s to apply at start-up', () => {
    expect(cliV8Flags(context({ nodeOptions: '--max-semi-space-size=1' }))).toEqual([wasm, heap]);
  });

  it('sets nothing on a Node whose V8 it was not checked against', () => {
    expect(cliV8Flags(context({ nodeVersion: '19.9.0' }))).toEqual([]);
    expect(cliV8Flags(context({ nodeVersion: '26.0.0' }))).toEqual([]);
  });
});
