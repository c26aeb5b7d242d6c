import { open, type FileHandle } from 'node:fs/promises';
import { ConfigError } from '../../types/errors.js';
import { ggmlTensorBytes } from './ggml-types.js';

/** What a GGUF file's header says, after the whole header (metadata and tensor infos) was walked. */
export interface GgufInfo {
  version: number;
  tensorCount: number;
  metadataCount: number;
  /** `general.architecture`, e.g. `llama`; undefined when the file does not say. */
  architecture: string | undefined;
  /** `split.count`: more than 1 for a model split into several files. */
  splitCount: number;
  /** Where tensor data starts (the header's end, aligned). */
  dataOffset: number;
  /** The smallest file size the tensor infos allow; the file is at least this long. */
  minimumFileSize: number;
  fileSize: number;
}

/** Why a file failed the check; `detail` is a short phrase without the path (callers add it). */
export type GgufProblem = 'not-gguf' | 'corrupt' | 'unsupported';

export type GgufCheck = { ok: true; info: GgufInfo } | { ok: false; problem: GgufProblem; detail: string };

const MAGIC = Buffer.from('GGUF', 'latin1');
/** magic + version + tensor count + metadata count (versions 2 and 3). */
const FIXED_HEADER_BYTES = 24;
/** Longest key or tensor name we accept; real ones are under 100 bytes, so more means garbage. */
const MAX_NAME_BYTES = 65_535;
const MAX_ARRAY_DEPTH = 4;
const MAX_COUNT = 1 << 24;
const DEFAULT_ALIGNMENT = 32;
const READ_WINDOW = 1 << 20;

/** Fixed byte sizes of the scalar GGUF value types, by type id; 8 (string) and 9 (array) are variable. */
const SCALAR_BYTES: Record<number, number> = {
  0: 1,
  1: 1,
  2: 2,
  3: 2,
  4: 4,
  5: 4,
  6: 4,
  7: 1,
  10: 8,
  11: 8,
  12: 8,
};
const STRING = 8;
const ARRAY = 9;

/** Thrown inside the parser; {@link checkGgufFile} turns it into a {@link GgufCheck}. */
class Problem extends Error {
  constructor(
    readonly problem: GgufProblem,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Reads a file front to back through a window, so multi-GB files cost only their header. */
class Cursor {
  pos = 0;
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  private async ensure(n: number, what: string): Promise<Buffer> {
    if (this.pos + n > this.size) throw truncated(this.size, `${what} runs past the end`);
    const offset = this.pos - this.windowStart;
    if (offset >= 0 && offset + n <= this.window.length) return this.window;
    const length = Math.min(Math.max(n, READ_WINDOW), this.size - this.pos);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, this.pos);
    if (bytesRead < n) throw truncated(this.size, `${what} runs past the end`);
    this.window = buffer.subarray(0, bytesRead);
    this.windowStart = this.pos;
    return this.window;
  }

  async u32(what: string): Promise<number> {
    const window = await this.ensure(4, what);
    const value = window.readUInt32LE(this.pos - this.windowStart);
    this.pos += 4;
    return value;
  }

  /** A uint64 that must fit a JS number; larger values only appear in garbage. */
  async u64(what: string): Promise<number> {
    const window = await this.ensure(8, what);
    const value = window.readBigUInt64LE(this.pos - this.windowStart);
    this.pos += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Problem('corrupt', `implausible ${what} ${value}`);
    return Number(value);
  }

  async bytes(n: number, what: string): Promise<Buffer> {
    const window = await this.ensure(n, what);
    const start = this.pos - this.windowStart;
    this.pos += n;
    return window.subarray(start, start + n);
  }

  /** Skips `count` strings; reads their lengths straight from the window (vocabularies hold 100k+). */
  async skipStrings(count: number, what: string): Promise<void> {
    for (let i = 0; i < count; i++) {
      if (this.pos < this.windowStart || this.pos + 8 > this.windowStart + this.window.length) {
        await this.ensure(8, `length of ${what}`);
      }
      const length = this.window.readBigUInt64LE(this.pos - this.windowStart);
      if (length > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new Problem('corrupt', `implausible length of ${what} ${length}`);
      }
      this.pos += 8;
      this.skip(Number(length), what);
    }
  }

  skip(n: number, what: string): void {
    if (this.pos + n > this.size) throw truncated(this.size, `${what} runs past the end`);
    this.pos += n;
  }
}

function truncated(size: number, detail: string): Problem {
  return new Problem('corrupt', `truncated at ${size} bytes: ${detail}`);
}

/**
 * Checks that `path` is a complete GGUF model without loading it: the magic, a supported version,
 * every metadata entry and tensor info inside the file, and the file long enough for the tensor
 * data the header describes (a cut-short download fails here, not deep inside llama.cpp).
 * Reads only the header. Never throws for a bad file; file-system errors (missing file) do throw.
 */
export async function checkGgufFile(path: string): Promise<GgufCheck> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return { ok: true, info: await parse(new Cursor(handle, size), handle) };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, problem: error.problem, detail: error.detail };
    throw error;
  } finally {
    await handle.close();
  }
}

/** The one-line message for a failed check of a file the user pointed at. */
export function ggufProblemMessage(path: string, check: { problem: GgufProblem; detail: string }): string {
  switch (check.problem) {
    case 'not-gguf':
      return `not a GGUF model file: ${path} (${check.detail})`;
    case 'corrupt':
      return `corrupt GGUF file: ${path} (${check.detail})`;
    case 'unsupported':
      return `unsupported GGUF file: ${path} (${check.detail})`;
  }
}

/** {@link checkGgufFile} for a local file: returns its info or throws a one-line {@link ConfigError}. */
export async function assertGgufFile(path: string): Promise<GgufInfo> {
  const check = await checkGgufFile(path);
  if (check.ok) return check.info;
  const hint =
    check.problem === 'not-gguf' && check.detail.includes('Git LFS pointer')
      ? 'the repository was cloned without Git LFS; download the .gguf file itself'
      : 'pass a .gguf model file (llama.cpp format), e.g. one downloaded from Hugging Face';
  throw new ConfigError(ggufProblemMessage(path, check), { hint });
}

async function parse(cursor: Cursor, handle: FileHandle): Promise<GgufInfo> {
  const size = cursor.size;
  const head = Buffer.alloc(Math.min(size, 32));
  await handle.read(head, 0, head.length, 0);
  if (size === 0) throw new Problem('corrupt', 'the file is empty');
  const magicLength = Math.min(size, 4);
  if (!head.subarray(0, magicLength).equals(MAGIC.subarray(0, magicLength))) {
    throw new Problem('not-gguf', describeStart(head));
  }
  if (size < FIXED_HEADER_BYTES) throw truncated(size, 'the file ends inside the GGUF header');

  cursor.pos = 4;
  const version = await cursor.u32('version');
  checkVersion(version);
  const tensorCount = await cursor.u64('tensor count');
  const metadataCount = await cursor.u64('metadata count');
  // Real models have a few thousand tensors and a few dozen metadata entries; far more is garbage.
  // (A merely cut-off file still fails below, with "truncated".)
  if (tensorCount > MAX_COUNT) throw new Problem('corrupt', `implausible tensor count ${tensorCount}`);
  if (metadataCount > MAX_COUNT) throw new Problem('corrupt', `implausible metadata count ${metadataCount}`);

  let alignment = DEFAULT_ALIGNMENT;
  let architecture: string | undefined;
  let splitCount = 1;
  for (let i = 0; i < metadataCount; i++) {
    const key = await readName(cursor, 'metadata key');
    const type = await cursor.u32(`type of metadata ${key}`);
    if (key === 'general.alignment' && type === 4) {
      alignment = await cursor.u32(`metadata ${key}`);
      if (alignment === 0 || (alignment & (alignment - 1)) !== 0) {
        throw new Problem('corrupt', `general.alignment ${alignment} is not a power of two`);
      }
    } else if (key === 'general.architecture' && type === STRING) {
      architecture = (await readName(cursor, `metadata ${key}`)).trim() || undefined;
    } else if (key === 'split.count' && type === 2) {
      splitCount = (await cursor.bytes(2, `metadata ${key}`)).readUInt16LE(0);
    } else {
      await skipValue(cursor, type, key, 0);
    }
  }

  let tensorEnd = 0n;
  for (let i = 0; i < tensorCount; i++) {
    const name = await readName(cursor, 'tensor name');
    const dimensionCount = await cursor.u32(`dimension count of tensor ${name}`);
    if (dimensionCount < 1 || dimensionCount > 4) {
      throw new Problem('corrupt', `tensor ${name} has ${dimensionCount} dimensions`);
    }
    let elements = 1n;
    for (let d = 0; d < dimensionCount; d++)
      elements *= BigInt(await cursor.u64(`dimension of tensor ${name}`));
    const ggmlType = await cursor.u32(`type of tensor ${name}`);
    const offset = await cursor.u64(`offset of tensor ${name}`);
    // Unknown (newer) types still need at least one byte at their offset.
    const bytes = ggmlTensorBytes(ggmlType, elements) ?? 1n;
    const end = BigInt(offset) + bytes;
    if (end > tensorEnd) tensorEnd = end;
  }

  const dataOffset = Math.ceil(cursor.pos / alignment) * alignment;
  const needed = tensorCount === 0 ? BigInt(cursor.pos) : BigInt(dataOffset) + tensorEnd;
  if (BigInt(size) < needed) {
    throw truncated(size, `its tensors need ${needed} bytes (a download cut short?)`);
  }
  const minimumFileSize = Number(needed);
  return {
    version,
    tensorCount,
    metadataCount,
    architecture,
    splitCount,
    dataOffset,
    minimumFileSize,
    fileSize: size,
  };
}

function checkVersion(version: number): void {
  if (version === 2 || version === 3) return;
  if (version === 1) {
    throw new Problem('unsupported', 'GGUF version 1 is no longer read by llama.cpp; get a newer conversion');
  }
  const swapped = Buffer.alloc(4);
  swapped.writeUInt32BE(version, 0);
  const bigEndianVersion = swapped.readUInt32LE(0);
  if (bigEndianVersion >= 1 && bigEndianVersion <= 3) {
    throw new Problem('unsupported', 'a big-endian GGUF file; this machine needs the little-endian one');
  }
  if (version === 0 || version > 0xffff) throw new Problem('corrupt', `implausible GGUF version ${version}`);
  throw new Problem('unsupported', `GGUF version ${version} is newer than this build reads (2 and 3)`);
}

async function readName(cursor: Cursor, what: string): Promise<string> {
  const length = await cursor.u64(`length of ${what}`);
  if (length > MAX_NAME_BYTES) throw new Problem('corrupt', `implausible ${what} length ${length}`);
  return (await cursor.bytes(length, what)).toString('utf8');
}

async function skipValue(cursor: Cursor, type: number, key: string, depth: number): Promise<void> {
  const scalar = SCALAR_BYTES[type];
  if (scalar !== undefined) return cursor.skip(scalar, `metadata ${key}`);
  if (type === STRING) return cursor.skip(await cursor.u64(`length of metadata ${key}`), `metadata ${key}`);
  if (type !== ARRAY || depth >= MAX_ARRAY_DEPTH) {
    throw new Problem('corrupt', `metadata ${key} has unknown type ${type}`);
  }
  const itemType = await cursor.u32(`item type of metadata ${key}`);
  const count = await cursor.u64(`length of metadata ${key}`);
  const itemBytes = SCALAR_BYTES[itemType];
  // Arrays of fixed-size items (token scores, types) are skipped in one step.
  if (itemBytes !== undefined) return cursor.skip(count * itemBytes, `metadata ${key}`);
  if (itemType === STRING) return cursor.skipStrings(count, `metadata ${key}`);
  for (let i = 0; i < count; i++) await skipValue(cursor, itemType, key, depth + 1);
}

/** The first bytes as readable text: printable ASCII kept, the rest escaped, e.g. `<!DOCTYPE html>\n`. */
function describeStart(head: Buffer): string {
  const text = head.subarray(0, 16);
  let shown = '';
  for (const byte of text) {
    if (byte === 0x0a) shown += '\\n';
    else if (byte === 0x0d) shown += '\\r';
    else if (byte === 0x09) shown += '\\t';
    else if (byte === 0x22 || byte === 0x5c) shown += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) shown += String.fromCharCode(byte);
    else shown += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  const lfs = head.toString('latin1').startsWith('version https://git-lfs');
  return `it starts with "${shown}"${lfs ? '; this is a Git LFS pointer, not the model' : ''}`;
}
