import { describe, expect, it } from 'vitest';
import { cliV8Flags, type CliV8Context } from './v8-flags.js';

const context = (overrides: Partial<CliV8Context> = {}): CliV8Context => ({
  argv: ['--config', 'team.yaml', 'question'],
  execArgv: [],
  nodeOptions: undefined,
  nodeVersion: '20.19.0',
  ...overrides,
});

describe('cliV8Flags', () => {
  it('keeps the wasm HTTP parser on the baseline tier and the young generation small for a run', () => {
    expect(cliV8Flags(context())).toEqual([
      '--wasm-tiering-budget=1000000000',
      '--semi-space-growth-factor=1',
    ]);
  });

  it.each([[['serve', '--port', '8080']], [['--web', '--config', 'team.yaml']]])(
    'long-lived servers (%j) keep V8’s default young generation',
    (argv) => {
      expect(cliV8Flags(context({ argv }))).toEqual(['--wasm-tiering-budget=1000000000']);
    },
  );

  it('leaves a setting the user chose, on the command line or in NODE_OPTIONS', () => {
    expect(cliV8Flags(context({ nodeOptions: '--max-semi-space-size=32' }))).toEqual([
      '--wasm-tiering-budget=1000000000',
    ]);
    expect(cliV8Flags(context({ execArgv: ['--liftoff-only'] }))).toEqual(['--semi-space-growth-factor=1']);
    expect(
      cliV8Flags(context({ nodeOptions: '--semi-space-growth-factor=2 --wasm-tiering-budget=5' })),
    ).toEqual([]);
  });

  it('sets nothing on a Node whose V8 it was not checked against', () => {
    expect(cliV8Flags(context({ nodeVersion: '19.9.0' }))).toEqual([]);
    expect(cliV8Flags(context({ nodeVersion: '26.0.0' }))).toEqual([]);
  });
});
