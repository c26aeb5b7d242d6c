import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import { ggmlTensorBytes } from './ggml-types.js';
import { assertGgufFile, checkGgufFile, ggufProblemMessage } from './gguf-header.js';
import { buildGguf, REAL_MODEL, realModelPresent } from './gguf-fixture.test-support.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'massgen-gguf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function fileWith(content: Buffer | string): Promise<string> {
  const path = join(dir, `file-${counter++}.gguf`);
  await writeFile(path, content);
  return path;
}

const tensors = [
  { name: 'token_embd.weight', dimensions: [8, 4] },
  { name: 'output_norm.weight', dimensions: [8] },
];

async function problemOf(content: Buffer | string): Promise<{ problem: string; detail: string }> {
  const check = await checkGgufFile(await fileWith(content));
  if (check.ok) throw new Error('expected the check to fail');
  return { problem: check.problem, detail: check.detail };
}

describe('checkGgufFile', () => {
  it('accepts a generated model without tensors and reports its header', async () => {
    const data = buildGguf();
    const check = await checkGgufFile(await fileWith(data));
    expect(check).toEqual({
      ok: true,
      info: expect.objectContaining({
        version: 3,
        tensorCount: 0,
        metadataCount: 5,
        architecture: 'llama',
        splitCount: 1,
        minimumFileSize: data.length,
        fileSize: data.length,
      }),
    });
  });

  it('accepts tensors whose data fills the file, with the default and a custom alignment', async () => {
    for (const alignment of [undefined, 64]) {
      const data = buildGguf({ tensors, ...(alignment ? { alignment } : {}) });
      const check = await checkGgufFile(await fileWith(data));
      expect(check.ok).toBe(true);
      if (!check.ok) continue;
      expect(check.info.tensorCount).toBe(2);
      expect(check.info.dataOffset % (alignment ?? 32)).toBe(0);
      expect(check.info.minimumFileSize).toBe(data.length);
    }
  });

  it('accepts version 2', async () => {
    expect((await checkGgufFile(await fileWith(buildGguf({ version: 2 })))).ok).toBe(true);
  });

  it('rejects a text file, quoting its first bytes', async () => {
    const check = await problemOf('hello "world"\nthis is not a model');
    expect(check).toEqual({ problem: 'not-gguf', detail: 'it starts with "hello \\"world\\"\\nth"' });
  });

  it('escapes binary bytes and recognises a Git LFS pointer', async () => {
    expect((await problemOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).detail).toBe(
      'it starts with "PK\\x03\\x04"',
    );
    const lfs = await fileWith('version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n');
    await expect(assertGgufFile(lfs)).rejects.toMatchObject({
      message: expect.stringContaining('this is a Git LFS pointer, not the model'),
      hint: expect.stringContaining('Git LFS'),
    });
  });

  it('calls empty files and cut-off headers corrupt', async () => {
    expect(await problemOf('')).toEqual({ problem: 'corrupt', detail: 'the file is empty' });
    expect(await problemOf('GG')).toMatchObject({
      problem: 'corrupt',
      detail: expect.stringContaining('truncated'),
    });
    expect(await problemOf(buildGguf().subarray(0, 20))).toEqual({
      problem: 'corrupt',
      detail: 'truncated at 20 bytes: the file ends inside the GGUF header',
    });
  });

  it('finds truncation inside the metadata, the tensor infos and the tensor data', async () => {
    const whole = buildGguf({ tensors });
    const check = await checkGgufFile(await fileWith(whole));
    if (!check.ok) throw new Error('fixture invalid');
    const metadataCut = await problemOf(whole.subarray(0, 60));
    expect(metadataCut.problem).toBe('corrupt');
    expect(metadataCut.detail).toMatch(/^truncated at 60 bytes: .*metadata.* runs past the end$/);
    const tensorInfoCut = await problemOf(whole.subarray(0, check.info.dataOffset - 40));
    expect(tensorInfoCut.detail).toMatch(/tensor .* runs past the end$/);
    const dataCut = await problemOf(whole.subarray(0, whole.length - 10));
    expect(dataCut.detail).toBe(
      `truncated at ${whole.length - 10} bytes: its tensors need ${whole.length} bytes (a download cut short?)`,
    );
  });

  it('names unsupported versions and big-endian files', async () => {
    const withVersion = (version: number, bigEndian = false): Buffer => {
      const data = buildGguf();
      if (bigEndian) data.writeUInt32BE(version, 4);
      else data.writeUInt32LE(version, 4);
      return data;
    };
    expect(await problemOf(withVersion(1))).toMatchObject({ problem: 'unsupported', detail: /version 1/ });
    expect(await problemOf(withVersion(4))).toMatchObject({
      problem: 'unsupported',
      detail: /version 4 is newer/,
    });
    expect(await problemOf(withVersion(3, true))).toMatchObject({
      problem: 'unsupported',
      detail: /big-endian/,
    });
    expect(await problemOf(withVersion(0x12345678))).toMatchObject({ problem: 'corrupt', detail: /version/ });
  });

  it('rejects implausible counts, alignments and value types', async () => {
    const hugeTensorCount = buildGguf();
    hugeTensorCount.writeBigUInt64LE(1n << 40n, 8);
    expect(await problemOf(hugeTensorCount)).toMatchObject({ problem: 'corrupt', detail: /tensor count/ });
    expect(await problemOf(buildGguf({ alignment: 3 }))).toMatchObject({ detail: /alignment 3/ });
    const badType = buildGguf({ metadata: { 'general.architecture': 'llama' } });
    // key length (8) + key (20 bytes) start at 24; the type follows the key.
    badType.writeUInt32LE(77, 24 + 8 + 'general.architecture'.length);
    expect(await problemOf(badType)).toMatchObject({ problem: 'corrupt', detail: /unknown type 77/ });
  });

  it.skipIf(!realModelPresent)(
    'accepts the real stories260K model exactly (needs /work/shared/models/stories260K.gguf, skipped when absent)',
    async () => {
      const check = await checkGgufFile(REAL_MODEL.path);
      expect(check).toMatchObject({
        ok: true,
        info: { version: 3, tensorCount: 48, architecture: 'llama', minimumFileSize: REAL_MODEL.bytes },
      });
    },
  );

  it('agrees with node-llama-cpp readGgufFileInfo on a generated file', async () => {
    const { readGgufFileInfo } = await import('node-llama-cpp');
    const path = await fileWith(buildGguf({ tensors }));
    const theirs = await readGgufFileInfo(path, { sourceType: 'filesystem', logWarnings: false });
    const ours = await checkGgufFile(path);
    expect(ours).toMatchObject({
      ok: true,
      info: { version: theirs.version, tensorCount: Number(theirs.tensorCount) },
    });
    expect(theirs.metadata.general.architecture).toBe('llama');
  });
});

describe('assertGgufFile and ggufProblemMessage', () => {
  it('throws one-line ConfigErrors naming the path', async () => {
    const path = await fileWith('just text');
    const error = await assertGgufFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`not a GGUF model file: ${path} (it starts with "just text")`);
    expect(ggufProblemMessage('/m.gguf', { problem: 'corrupt', detail: 'x' })).toBe(
      'corrupt GGUF file: /m.gguf (x)',
    );
  });
});

describe('ggmlTensorBytes', () => {
  it('sizes plain and block-quantised tensors and gives up on unknown types', () => {
    expect(ggmlTensorBytes(0, 10n)).toBe(40n);
    expect(ggmlTensorBytes(12, 512n)).toBe(288n);
    expect(ggmlTensorBytes(4, 32n)).toBeUndefined();
  });
});
