import { open, stat } from 'node:fs/promises';
import { ConfigError } from '../../types/errors.js';

const MAGIC = Buffer.from('GGUF', 'latin1');
/** magic, version, tensor count, metadata count. */
const HEADER_BYTES = 24;
/** Real models have a few thousand tensors and a few dozen metadata entries. */
const MAX_COUNT = 1n << 24n;

/** What a GGUF file's header says (read by node-llama-cpp's `readGgufFileInfo`). */
export interface GgufInfo {
  version: number;
  tensorCount: number;
  /** `general.architecture`, e.g. `llama`; undefined when the file does not say. */
  architecture: string | undefined;
  /** Where tensor data starts (the end of the header, aligned). */
  dataOffset: number;
  fileSize: number;
}

/** Why a file failed the check; `detail` is a short phrase without the path (callers add it). */
export type GgufProblem = 'not-gguf' | 'corrupt' | 'unsupported';

export type GgufCheck = { ok: true; info: GgufInfo } | { ok: false; problem: GgufProblem; detail: string };

/**
 * Checks that `path` is a usable GGUF model without loading it, with node-llama-cpp's own reader
 * (`readGgufFileInfo`, imported on first use). What the library does not check, this adds:
 * - the magic and the version, read first: the library parses any version as if it were 3, so
 *   version 4, a big-endian file or garbage would pass;
 * - the end of the file: it reads past the end as zeros, so a cut-off header would pass; here the
 *   header and the start of every tensor's data must lie inside the file. The library gives tensor
 *   byte sizes only through `GgufInsights`, which needs the native binding loaded, so a file cut
 *   inside its last tensor passes here and llama.cpp reports it when it loads the model.
 * Never throws for a bad file; file-system errors (a missing file) do throw.
 */
export async function checkGgufFile(path: string): Promise<GgufCheck> {
  const { size } = await stat(path);
  if (size === 0) return bad('corrupt', 'the file is empty');
  const start = await head(path);
  const magicLength = Math.min(start.length, 4);
  if (!start.subarray(0, magicLength).equals(MAGIC.subarray(0, magicLength))) {
    return bad('not-gguf', describeStart(start));
  }
  if (size < HEADER_BYTES) return truncated(size, 'the file ends inside the GGUF header');
  const versionProblem = checkVersion(start.readUInt32LE(4));
  if (versionProblem) return versionProblem;
  // The library would loop through a garbage count reading zeros past the end of the file.
  const tensorCount = start.readBigUInt64LE(8);
  const metadataCount = start.readBigUInt64LE(16);
  if (tensorCount > MAX_COUNT) return bad('corrupt', `implausible tensor count ${tensorCount}`);
  if (metadataCount > MAX_COUNT) return bad('corrupt', `implausible metadata count ${metadataCount}`);

  const { readGgufFileInfo } = await import('node-llama-cpp');
  let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
  try {
    info = await readGgufFileInfo(path, {
      sourceType: 'filesystem',
      spliceSplitFiles: false,
      logWarnings: false,
    });
  } catch (error) {
    // The reader's RangeErrors and TypeErrors mean a length or count in the header is garbage.
    if (
      error instanceof RangeError ||
      error instanceof TypeError ||
      isNamed(error, 'UnsupportedGgufValueTypeError')
    ) {
      return bad('corrupt', `unreadable header (${describe(error)})`);
    }
    throw error;
  }
  const headerEnd = info.metadataSize + (info.tensorInfoSize ?? 0);
  if (headerEnd > size) return truncated(size, `its header needs ${headerEnd} bytes`);
  let lastTensorStart = -1;
  for (const tensor of info.tensorInfo ?? []) {
    lastTensorStart = Math.max(lastTensorStart, Number(tensor.fileOffset));
  }
  if (lastTensorStart >= size) {
    return truncated(
      size,
      `its tensor data runs to at least ${lastTensorStart + 1} bytes (a download cut short?)`,
    );
  }
  const architecture = info.metadata.general?.architecture;
  return {
    ok: true,
    info: {
      version: info.version,
      tensorCount: Number(info.tensorCount),
      architecture: typeof architecture === 'string' && architecture.trim() !== '' ? architecture : undefined,
      dataOffset: info.infoEndOffset ?? headerEnd,
      fileSize: size,
    },
  };
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

function bad(problem: GgufProblem, detail: string): GgufCheck {
  return { ok: false, problem, detail };
}

function truncated(size: number, detail: string): GgufCheck {
  return bad('corrupt', `truncated at ${size} bytes: ${detail}`);
}

function checkVersion(version: number): GgufCheck | undefined {
  if (version === 2 || version === 3) return undefined;
  if (version === 1) {
    return bad('unsupported', 'GGUF version 1 is no longer read by llama.cpp; get a newer conversion');
  }
  const swapped = Buffer.alloc(4);
  swapped.writeUInt32BE(version >>> 0, 0);
  const bigEndianVersion = swapped.readUInt32LE(0);
  if (bigEndianVersion >= 1 && bigEndianVersion <= 3) {
    return bad('unsupported', 'a big-endian GGUF file; this machine needs the little-endian one');
  }
  if (version === 0 || version > 0xffff) return bad('corrupt', `implausible GGUF version ${version}`);
  return bad('unsupported', `GGUF version ${version} is newer than this build reads (2 and 3)`);
}

async function head(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The first bytes as readable text: printable ASCII kept, the rest escaped, e.g. `<!DOCTYPE html>\n`. */
function describeStart(start: Buffer): string {
  let shown = '';
  for (const byte of start.subarray(0, 16)) {
    if (byte === 0x0a) shown += '\\n';
    else if (byte === 0x0d) shown += '\\r';
    else if (byte === 0x09) shown += '\\t';
    else if (byte === 0x22 || byte === 0x5c) shown += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) shown += String.fromCharCode(byte);
    else shown += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  const lfs = start.toString('latin1').startsWith('version https://git-lfs');
  return `it starts with "${shown}"${lfs ? '; this is a Git LFS pointer, not the model' : ''}`;
}

function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && (error.name === name || error.constructor.name === name);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
