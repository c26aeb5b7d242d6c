import { describe, expect, it } from 'vitest';
import { cliV8Flags, type CliV8Context } from './v8-flags.js';

const context = (overrides: Partial<CliV8Context> = {}): CliV8Context => ({
  execArgv: [],
  nodeOptions: undefined,
  nodeVersion: '20.19.0',
  ...overrides,
});

describe('cliV8Flags', () => {
  it('keeps the wasm HTTP parser on the baseline tier, and sets nothing else', () => {
    expect(cliV8Flags(context())).toEqual(['--wasm-tiering-budget=2147483647']);
  });

  it('leaves a wasm tiering setting the user chose, on the command line or in NODE_OPTIONS', () => {
    expect(cliV8Flags(context({ execArgv: ['--liftoff-only'] }))).toEqual([]);
    expect(cliV8Flags(context({ nodeOptions: '--wasm-tiering-budget=5' }))).toEqual([]);
    expect(cliV8Flags(context({ nodeOptions: '--no-wasm-dynamic-tiering' }))).toEqual([]);
  });

  it('does not touch the young generation: a size in NODE_OPTIONS is V8’s to apply at start-up', () => {
    expect(cliV8Flags(context({ nodeOptions: '--max-semi-space-size=1' }))).toEqual([
      '--wasm-tiering-budget=2147483647',
    ]);
  });

  it('sets nothing on a Node whose V8 it was not checked against', () => {
    expect(cliV8Flags(context({ nodeVersion: '19.9.0' }))).toEqual([]);
    expect(cliV8Flags(context({ nodeVersion: '26.0.0' }))).toEqual([]);
  });
});
