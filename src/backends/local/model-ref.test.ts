import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../types/errors.js';
import { cachePath, hubUrl, parseModelRef, type HubModelRef } from './model-ref.js';

describe('parseModelRef', () => {
  it('reads hf: references, with subfolders', () => {
    expect(parseModelRef('hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf')).toEqual({
      kind: 'hub',
      repo: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
      file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
    });
    expect(parseModelRef(' hf:user/repo/sub/dir/file.GGUF ')).toEqual({
      kind: 'hub',
      repo: 'user/repo',
      file: 'sub/dir/file.GGUF',
    });
  });

  it('reads a revision written as node-llama-cpp does: hf:<user>/<repo>/<file>#<revision>', () => {
    expect(parseModelRef('hf:user/repo/m.gguf#v2')).toEqual({
      kind: 'hub',
      repo: 'user/repo',
      file: 'm.gguf',
      revision: 'v2',
    });
    expect(parseModelRef('hf:user/repo/m.gguf#main')).toEqual({
      kind: 'hub',
      repo: 'user/repo',
      file: 'm.gguf',
    });
    expect(() => parseModelRef('hf:user/repo/m.gguf#')).toThrow(/the revision is empty/);
  });

  it('reads Hugging Face resolve and blob links, keeping a non-main revision', () => {
    expect(parseModelRef('https://huggingface.co/user/repo/resolve/main/m.gguf?download=true')).toEqual({
      kind: 'hub',
      repo: 'user/repo',
      file: 'm.gguf',
    });
    expect(parseModelRef('https://hf.co/user/repo/blob/v1.0/sub/my%20model.gguf')).toEqual({
      kind: 'hub',
      repo: 'user/repo',
      file: 'sub/my model.gguf',
      revision: 'v1.0',
    });
  });

  it('rejects malformed hub references with one line and a hint', () => {
    const cases: [string, RegExp][] = [
      ['hf:user/repo', /needs <user>\/<repo>\/<file>\.gguf/],
      ['hf:user/repo:Q4_K_M', /name the file, not a quantisation tag \("Q4_K_M"\)/],
      ['hf:user/repo/../../etc/passwd.gguf', /contains "\." or "\.\." parts/],
      ['hf:user//x.gguf', /not a valid <user>\/<repo>/],
      ['hf:user/repo/model.bin', /"model\.bin" is not a \.gguf file/],
      ['https://huggingface.co/user/repo/tree/main', /unsupported model URL/],
      ['https://example.com/model.gguf', /unsupported model URL: https:\/\/example\.com\/model\.gguf/],
      ['', /the model reference is empty/],
    ];
    for (const [input, message] of cases) {
      let error: unknown;
      try {
        parseModelRef(input);
      } catch (caught) {
        error = caught;
      }
      expect(error, input).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message, input).toMatch(message);
      expect((error as ConfigError).hint, input).toBeTruthy();
    }
  });

  it('treats everything else as a path: ~ expanded, file: URLs, relative to the working folder', () => {
    expect(parseModelRef('~/models/x.gguf')).toEqual({
      kind: 'path',
      path: join(homedir(), 'models/x.gguf'),
    });
    expect(parseModelRef('~')).toEqual({ kind: 'path', path: homedir() });
    expect(parseModelRef('file:///tmp/a%20b.gguf')).toEqual({ kind: 'path', path: '/tmp/a b.gguf' });
    expect(parseModelRef('models/x.gguf')).toEqual({ kind: 'path', path: resolve('models/x.gguf') });
    expect(parseModelRef('/abs/x.gguf')).toEqual({ kind: 'path', path: '/abs/x.gguf' });
    // `~user` is not expanded (no user lookup): it stays a relative name.
    expect(parseModelRef('~bob/x.gguf')).toEqual({ kind: 'path', path: resolve('~bob/x.gguf') });
  });
});

describe('hubUrl', () => {
  it('builds resolve URLs, encoding names and ignoring a trailing slash', () => {
    const ref: HubModelRef = { kind: 'hub', repo: 'user/repo', file: 'sub/my model.gguf' };
    expect(hubUrl(ref, 'http://127.0.0.1:9/')).toBe(
      'http://127.0.0.1:9/user/repo/resolve/main/sub/my%20model.gguf',
    );
    expect(hubUrl({ ...ref, revision: 'refs/pr/1' }, 'https://huggingface.co')).toBe(
      'https://huggingface.co/user/repo/resolve/refs%2Fpr%2F1/sub/my%20model.gguf',
    );
  });
});

describe('cachePath', () => {
  it('mirrors user/repo/file under the model folder, revisions beside main', () => {
    const ref: HubModelRef = { kind: 'hub', repo: 'user/repo', file: 'sub/m.gguf' };
    expect(cachePath(ref, '/cache/models/')).toBe('/cache/models/user/repo/sub/m.gguf');
    expect(cachePath({ ...ref, revision: 'abc123' }, '/cache')).toBe('/cache/user/repo@abc123/sub/m.gguf');
    expect(cachePath({ ...ref, revision: '..' }, '/cache')).toBe('/cache/user/repo@../sub/m.gguf');
  });

  it('refuses names that would leave the model folder', () => {
    const unsafe: HubModelRef[] = [
      { kind: 'hub', repo: 'user/repo', file: '../../x.gguf' },
      { kind: 'hub', repo: '../repo', file: 'x.gguf' },
      { kind: 'hub', repo: 'user/repo/extra', file: 'x.gguf' },
      { kind: 'hub', repo: 'user/repo', file: '/etc/x.gguf' },
      { kind: 'hub', repo: 'user/repo', file: 'a\\..\\x.gguf' },
    ];
    for (const ref of unsafe) expect(() => cachePath(ref, '/cache'), ref.file).toThrow(ConfigError);
  });
});
