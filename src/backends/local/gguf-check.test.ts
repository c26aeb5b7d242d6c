import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import { assertGgufFile, checkGgufFile, ggufProblemMessage } from './gguf-check.js';
import { buildGguf, REAL_MODEL, REAL_MODEL_SKIPPED, realModelPresent } from './gguf-fixture.test-support.js';

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

describe('checkGgufFile (node-llama-cpp readGgufFileInfo plus the checks it lacks)', () => {
  it('accepts generated models, with and without tensors, versions 2 and 3, any alignment', async () => {
    const bare = buildGguf();
    expect(await checkGgufFile(await fileWith(bare))).toEqual({
      ok: true,
      info: expect.objectContaining({
        version: 3,
        tensorCount: 0,
        architecture: 'llama',
        fileSize: bare.length,
      }),
    });
    for (const options of [{ tensors }, { tensors, alignment: 64 }, { tensors, version: 2 }]) {
      const check = await checkGgufFile(await fileWith(buildGguf(options)));
      expect(check, JSON.stringify(options)).toMatchObject({ ok: true, info: { tensorCount: 2 } });
      if (check.ok) expect(check.info.dataOffset % (options.alignment ?? 32)).toBe(0);
    }
  });

  it('rejects a text file, quoting its first bytes, and recognises a Git LFS pointer', async () => {
    expect(await problemOf('hello "world"\nthis is not a model')).toEqual({
      problem: 'not-gguf',
      detail: 'it starts with "hello \\"world\\"\\nth"',
    });
    expect((await problemOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]))).detail).toBe(
      'it starts with "PK\\x03\\x04"',
    );
    const lfs = await fileWith('version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n');
    await expect(assertGgufFile(lfs)).rejects.toMatchObject({
      message: expect.stringContaining('this is a Git LFS pointer, not the model'),
      hint: expect.stringContaining('Git LFS'),
    });
  });

  it('finds empty files and files cut inside the header, the tensor infos or before tensor data', async () => {
    expect(await problemOf('')).toEqual({ problem: 'corrupt', detail: 'the file is empty' });
    expect(await problemOf('GG')).toEqual({
      problem: 'corrupt',
      detail: 'truncated at 2 bytes: the file ends inside the GGUF header',
    });
    const whole = buildGguf({ tensors });
    const check = await checkGgufFile(await fileWith(whole));
    if (!check.ok) throw new Error('fixture invalid');
    for (const cut of [60, check.info.dataOffset - 40]) {
      expect(await problemOf(whole.subarray(0, cut))).toEqual({
        problem: 'corrupt',
        detail: expect.stringMatching(new RegExp(`^truncated at ${cut} bytes: its header needs \\d+ bytes$`)),
      });
    }
    // Cut inside the first tensor: the second one's data would start past the end.
    expect(await problemOf(whole.subarray(0, check.info.dataOffset + 8))).toEqual({
      problem: 'corrupt',
      detail: expect.stringMatching(/^truncated at \d+ bytes: its tensor data runs to at least \d+ bytes/),
    });
  });

  it('names unsupported versions and big-endian files, and calls garbage counts corrupt', async () => {
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
    const hugeTensorCount = buildGguf();
    hugeTensorCount.writeBigUInt64LE(1n << 40n, 8);
    expect(await problemOf(hugeTensorCount)).toMatchObject({ problem: 'corrupt', detail: /tensor count/ });
    const hugeKey = buildGguf();
    hugeKey.writeBigUInt64LE(1n << 48n, 24);
    expect(await problemOf(hugeKey)).toMatchObject({ problem: 'corrupt', detail: /^unreadable header/ });
  });

  it.skipIf(!realModelPresent)(`accepts the real stories260K model${REAL_MODEL_SKIPPED}`, async () => {
    expect(await checkGgufFile(REAL_MODEL.path)).toMatchObject({
      ok: true,
      info: { version: 3, tensorCount: 48, architecture: 'llama', fileSize: REAL_MODEL.bytes },
    });
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
