import { describe, expect, it } from 'vitest';
import { parseByteSize } from './byte-size.js';
import { parseConfig } from './index.js';

const withMemory = (memory: unknown) =>
  parseConfig(
    {
      agents: [
        { id: 'a', backend: { type: 'chatcompletion', model: 'm', api_key: 'k', sandbox: { memory } } },
      ],
    },
    { env: {} },
  ).agents[0]!.backend.sandbox.memory;

describe('sizes', () => {
  it('reads bytes and k/m/g/t in binary units, as Docker does', () => {
    expect(parseByteSize(67108864)).toBe(64 * 1024 ** 2);
    expect(parseByteSize('512m')).toBe(512 * 1024 ** 2);
    expect(parseByteSize('2G')).toBe(2 * 1024 ** 3);
    expect(parseByteSize('1.5g')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('512 MiB')).toBe(512 * 1024 ** 2);
    expect(parseByteSize('4096')).toBe(4096);
    for (const bad of ['2x', '', 'm', '-1g', '0', 1.5, 0, -3]) expect(parseByteSize(bad)).toBe(null);
  });

  it('sandbox.memory defaults to 2 GiB and says how to write a size, naming the key', () => {
    const config = parseConfig(
      { agents: [{ id: 'a', backend: { type: 'chatcompletion', model: 'm', api_key: 'k' } }] },
      { env: {} },
    );
    expect(config.agents[0]!.backend.sandbox.memory).toBe(2 * 1024 ** 3);
    expect(withMemory('512m')).toBe(512 * 1024 ** 2);
    expect(() => withMemory('2x')).toThrow(
      'agents[0].backend.sandbox.memory: "2x" is not a size: write bytes (2147483648) or a number with k, m or g (512m, 2g)',
    );
    expect(() => withMemory(true)).toThrow(
      'agents[0].backend.sandbox.memory: must be a size: bytes (2147483648) or a number with k, m or g (512m, 2g)',
    );
    expect(() => withMemory('1m')).toThrow(
      'agents[0].backend.sandbox.memory: "1m" is 1 MiB, less than the 16 MiB a command needs to start; write at least 16m',
    );
  });
});
