import { z } from 'zod';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
const SIZE = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?$/i;

/**
 * A size in bytes as people write it: bytes (`2147483648`), or a number with `k`, `m`, `g` or `t`
 * (binary units, as Docker's `--memory` reads them: `512m`, `2g`, `1.5G`, `512MiB`). Null when it is
 * not one.
 */
export function parseByteSize(value: number | string): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  const match = SIZE.exec(value.trim());
  if (!match) return null;
  const bytes = Math.floor(Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()]!);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

/** `2g` → 2 GiB, `64 MiB`, `1.5 GiB`: how limits are named back to people. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * A byte size in the config (see {@link parseByteSize}), at least `min` bytes; the output is bytes.
 * A value that is not a size says how to write one.
 */
export function byteSizeSchema(min: number) {
  const sizeOrBytes = 'must be a size: bytes (2147483648) or a number with k, m or g (512m, 2g)';
  return z.union([z.number(), z.string()], { error: sizeOrBytes }).transform((value, ctx) => {
    const bytes = parseByteSize(value);
    if (bytes === null) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(value)} is not a size: write bytes (2147483648) or a number with k, m or g (512m, 2g)`,
      });
      return z.NEVER;
    }
    if (bytes < min) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(value)} is ${formatByteSize(bytes)}, less than the ${formatByteSize(min)} a command needs to start; write at least ${min / 1024 ** 2}m`,
      });
      return z.NEVER;
    }
    return bytes;
  });
}
