import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A metadata value: strings, booleans, integers (uint32), other numbers (float32), or arrays of these. */
export type GgufFixtureValue = string | number | boolean | readonly string[] | readonly number[];

export interface GgufFixtureOptions {
  version?: number;
  metadata?: Record<string, GgufFixtureValue>;
  /** F32 tensors, laid out one after another (aligned) after the header; the data is a byte pattern. */
  tensors?: { name: string; dimensions: number[] }[];
  /** Written as `general.alignment` when set. */
  alignment?: number;
}

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The tiny real model shared on test machines: `shared/models/stories260K.gguf` beside the repository
 * (the same file local.test-support.ts and test/e2e/local-model.test.ts use). Tests using it skip, with
 * {@link REAL_MODEL_SKIPPED} in their title, when it is absent.
 */
export const REAL_MODEL = {
  path: path.resolve(REPO_ROOT, '..', 'shared', 'models', 'stories260K.gguf'),
  bytes: 1_185_376,
  sha256: '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d',
} as const;
export const realModelPresent = existsSync(REAL_MODEL.path);
/** The title suffix of a test that needs the real model: empty when it is there. */
export const REAL_MODEL_SKIPPED = realModelPresent
  ? ''
  : ' (skipped: ../shared/models/stories260K.gguf beside the repository not found)';

export const defaultMetadata: Record<string, GgufFixtureValue> = {
  'general.architecture': 'llama',
  'general.name': 'massgen test model',
  'llama.context_length': 128,
  'tokenizer.ggml.tokens': ['<unk>', '<s>', '</s>', 'hello', 'world'],
  'tokenizer.ggml.scores': [0, 0, 0, -1.5, -2.5],
};

/** Builds a small but structurally complete GGUF file (version 3 unless told otherwise). */
export function buildGguf(options: GgufFixtureOptions = {}): Buffer {
  const metadata = { ...(options.metadata ?? defaultMetadata) };
  if (options.alignment !== undefined) metadata['general.alignment'] = options.alignment;
  const alignment = options.alignment ?? 32;
  const tensors = options.tensors ?? [];
  const parts: Buffer[] = [Buffer.from('GGUF', 'latin1'), u32(options.version ?? 3)];
  parts.push(u64(tensors.length), u64(Object.keys(metadata).length));
  for (const [key, value] of Object.entries(metadata)) parts.push(str(key), typedValue(value));
  let offset = 0;
  const sizes: number[] = [];
  for (const tensor of tensors) {
    parts.push(str(tensor.name), u32(tensor.dimensions.length));
    for (const dimension of tensor.dimensions) parts.push(u64(dimension));
    parts.push(u32(0), u64(offset));
    const size = tensor.dimensions.reduce((a, b) => a * b, 1) * 4;
    sizes.push(size);
    offset += Math.ceil(size / alignment) * alignment;
  }
  const header = Buffer.concat(parts);
  if (tensors.length === 0) return header;
  const padding = Buffer.alloc(Math.ceil(header.length / alignment) * alignment - header.length);
  const data = Buffer.alloc(offset);
  for (let i = 0; i < data.length; i++) data[i] = i % 251;
  // The last tensor needs no padding after it: llama.cpp's own files end right after its data.
  const end = offset - (Math.ceil((sizes.at(-1) ?? 0) / alignment) * alignment - (sizes.at(-1) ?? 0));
  return Buffer.concat([header, padding, data.subarray(0, end)]);
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function typedValue(value: GgufFixtureValue): Buffer {
  if (typeof value === 'string') return Buffer.concat([u32(8), str(value)]);
  if (typeof value === 'boolean') return Buffer.concat([u32(7), Buffer.from([value ? 1 : 0])]);
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0
      ? Buffer.concat([u32(4), u32(value)])
      : Buffer.concat([u32(6), f32(value)]);
  }
  if (value.every((item): item is string => typeof item === 'string')) {
    return Buffer.concat([u32(9), u32(8), u64(value.length), ...value.map(str)]);
  }
  return Buffer.concat([u32(9), u32(6), u64(value.length), ...value.map((item) => f32(Number(item)))]);
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}

function u64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
}

function f32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeFloatLE(value);
  return buffer;
}

function str(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([u64(bytes.length), bytes]);
}
