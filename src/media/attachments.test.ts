import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyMp3, tinyMp4, tinyPdf, tinyPng, tinyWav } from '../testing/media-fixtures.js';
import { ConfigError } from '../types/errors.js';
import { loadAttachments, questionWithAttachments } from './attachments.js';
import { checkMediaForAgents } from './agent-media-checks.js';
import { readMediaFile, sha256Hex } from './read-media-file.js';
import { mediaLabel } from './media-label.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-media-'));
const file = (name: string, data: string | Uint8Array) => {
  const at = path.join(dir, name);
  writeFileSync(at, data);
  return at;
};
const load = (...inputs: Parameters<typeof loadAttachments>[0]) => loadAttachments(inputs, { baseDir: dir });
/** The test server is on 127.0.0.1: only with private addresses allowed (`--allow-private-urls`). */
const loadPrivate = (...inputs: Parameters<typeof loadAttachments>[0]) =>
  loadAttachments(inputs, { baseDir: dir, download: { guard: { allowPrivate: true } } });
const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).message;
};

let server: Server;
let origin = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/photo.png') res.end(tinyPng());
    else if (req.url === '/huge.bin') {
      res.setHeader('content-length', String(200 * 1024 * 1024));
      res.end();
    } else {
      res.statusCode = 404;
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('attachments: media by their bytes, text inlined', () => {
  it('an image, audio, video and PDF become parts with the type from their bytes, size and sha256', async () => {
    const png = tinyPng();
    const { texts, media } = await load(
      file('photo.png', png),
      file('talk.mp3', tinyMp3()),
      file('tone.wav', tinyWav()),
      file('clip.mp4', tinyMp4()),
      file('paper.pdf', tinyPdf()),
    );
    expect(texts).toEqual([]);
    expect(media.map((m) => [m.name, m.kind, m.mediaType])).toEqual([
      ['photo.png', 'image', 'image/png'],
      ['talk.mp3', 'audio', 'audio/mpeg'],
      ['tone.wav', 'audio', expect.stringMatching(/^audio\/(x-)?wav$/)],
      ['clip.mp4', 'video', 'video/mp4'],
      ['paper.pdf', 'document', 'application/pdf'],
    ]);
    expect(media[0]).toMatchObject({
      bytes: png.length,
      sha256: sha256Hex(png),
      path: path.join(dir, 'photo.png'),
    });
    expect(Buffer.from(media[0]!.data).equals(png)).toBe(true);
  });

  it('a text file keeps today’s behaviour: inlined into the question under its name', async () => {
    const { texts, media } = await load(file('notes.md', '# Notes\nShip on Tuesday.\n'));
    expect(media).toEqual([]);
    expect(questionWithAttachments('Summarise', texts)).toBe(
      'Summarise\n\nAttached file notes.md:\n```\n# Notes\nShip on Tuesday.\n```',
    );
  });

  it('a misnamed media file is taken by its bytes (a PNG called .jpg is image/png)', async () => {
    const { media } = await load(file('really-a-png.jpg', tinyPng()));
    expect(media[0]?.mediaType).toBe('image/png');
  });

  it('bytes from a library caller: { name, data }', async () => {
    const { media } = await load({ name: 'upload.png', data: tinyPng(4, 4) });
    expect(media[0]).toMatchObject({ name: 'upload.png', kind: 'image' });
    expect(media[0]?.path).toBeUndefined();
  });
});

describe('attachments: bad inputs are one clear line naming the file', () => {
  it('a 0-byte file', async () => {
    expect(await failure(load(file('empty.png', '')))).toBe(
      'attachment ' +
        path.join(dir, 'empty.png') +
        ': the file is empty (0 bytes): was it still being written?',
    );
  });

  it('a renamed non-image says what it looks like', async () => {
    expect(await failure(load('photo-text.png'))).toMatch(/photo-text\.png: file not found$/);
    file('photo-text.png', 'just some words\n');
    expect(await failure(load('photo-text.png'))).toBe(
      'attachment photo-text.png: its bytes are not an image (looks like text/plain): check it is the file you meant, or give a text file a text name (.txt, .md) to attach it as text',
    );
    file('song.mp3', Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Array<number>(60).fill(0)]));
    expect(await failure(load('song.mp3'))).toBe(
      'attachment song.mp3: its bytes are not an audio file (looks like application/zip): check it is the file you meant',
    );
  });

  it('an image type no model takes, and a binary that is nothing a model takes', async () => {
    const bmp = Buffer.alloc(64);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(64, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    file('scan.bmp', bmp);
    expect(await failure(load('scan.bmp'))).toMatch(
      /^attachment scan\.bmp: image\/bmp is not an image type models take: convert it to PNG, JPEG/,
    );
    file('blob.dat', Buffer.from([1, 2, 0, 3, 255, 254]));
    expect(await failure(load('blob.dat'))).toBe(
      'attachment blob.dat: it is neither text nor an image, audio, video or PDF file (looks like application/octet-stream)',
    );
  });

  it('a file over the limit names its size and the limit and suggests a context path', async () => {
    const big = Buffer.concat([tinyPng(), Buffer.alloc(21 * 1024 * 1024)]);
    file('big.png', big);
    expect(await failure(load('big.png'))).toMatch(
      /^attachment big\.png: 21 MB is over the 20 MB limit for images: shrink it, or give it as a context path \(orchestrator\.context_paths\)/,
    );
    file('long.txt', 'x'.repeat(1024 * 1024 + 1));
    expect(await failure(load('long.txt'))).toMatch(
      /^attachment long\.txt: a text file of 1(\.0)? MB is over the 1 MB limit for text attachments .*context path/,
    );
  });

  it.skipIf(process.getuid?.() === 0)(
    `an unreadable file${process.getuid?.() === 0 ? ' (skipped: root reads every file; test/e2e/attach.test.ts runs it as nobody)' : ''}`,
    async () => {
      const secret = file('locked.png', tinyPng());
      chmodSync(secret, 0o000);
      expect(await failure(load('locked.png'))).toBe(
        'attachment locked.png: cannot be read (permission denied)',
      );
    },
  );

  it('a folder, and a path through a file', async () => {
    expect(await failure(load('.'))).toBe('attachment .: is a folder, not a file');
    file('plain-file', 'x');
    expect(await failure(load('plain-file/photo.png'))).toBe(
      'attachment plain-file/photo.png: file not found (a part of the path is a file, not a folder)',
    );
  });

  it('readMediaFile refuses text: it is for media only', async () => {
    expect(await failure(readMediaFile(file('plain.txt', 'hello')))).toMatch(
      /plain\.txt: it is a text file, not an image, audio, video or PDF file$/,
    );
    expect((await readMediaFile(file('ok.png', tinyPng()))).kind).toBe('image');
  });
});

describe('attachments given as URLs', () => {
  it('a URL on this machine or a private network is refused unless allowed, naming the URL and the flag', async () => {
    expect(await failure(load(`${origin}/photo.png`))).toBe(
      `attachment ${origin}/photo.png: refused: 127.0.0.1 is a loopback address (this machine), not a public one: pass --allow-private-urls to fetch from this machine or your network, or download it yourself and attach the file by its path`,
    );
    expect(await failure(load('http://169.254.169.254/latest/meta-data/iam'))).toMatch(
      /^attachment http:\/\/169\.254\.169\.254\/latest\/meta-data\/iam: refused: 169\.254\.169\.254 is a link-local address/,
    );
  });

  it('are downloaded at start and judged by their bytes', async () => {
    const { media } = await loadPrivate(`${origin}/photo.png`);
    expect(media[0]).toMatchObject({ name: 'photo.png', kind: 'image', path: `${origin}/photo.png` });
  });

  it('an HTTP error, a body over the cap and an unreachable host are clear errors', async () => {
    expect(await failure(loadPrivate(`${origin}/gone.png`))).toMatch(
      /gone\.png: the server answered 404 Not Found: check the URL, or download it yourself/,
    );
    expect(await failure(loadPrivate(`${origin}/huge.bin`))).toMatch(
      /huge\.bin: 200 MB is over the 50 MB limit for an attached file/,
    );
    // A port nothing listens on: what offline looks like to fetch.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(loadPrivate(`http://127.0.0.1:${port}/photo.png`))).toMatch(
      /^attachment http:\/\/127\.0\.0\.1:\d+\/photo\.png: could not download it \(.*ECONNREFUSED.*\): check the network, or download it yourself and attach the file by its path$/,
    );
  });
});

describe('media against each agent’s model', () => {
  it('a kind a model does not take is a warning; a file over a provider limit is an error naming file, agent and limit', async () => {
    const { media } = await load(file('p.png', tinyPng()), file('t.mp3', tinyMp3()));
    const warnings = checkMediaForAgents(media, [
      { agentId: 'seer', model: 'openai/gpt-4o', input: { kinds: ['image', 'audio'] } },
      { agentId: 'eyes', model: 'claude/claude-sonnet-4-5', input: { kinds: ['image', 'document'] } },
    ]);
    expect(warnings).toEqual([
      {
        code: 'media_unsupported',
        message:
          'agent eyes (claude/claude-sonnet-4-5) cannot take audio files: it is not shown t.mp3 and reads a note naming it instead',
      },
    ]);
    expect(() =>
      checkMediaForAgents(media, [
        { agentId: 'tiny', model: 'x/y', input: { kinds: ['image'], maxBytes: { image: 10 } } },
      ]),
    ).toThrow(/^attachment p\.png: \d+ B is over the 10 B limit for images of agent tiny \(x\/y\)$/);
  });

  it('views name a file by name, kind and size', () => {
    expect(mediaLabel({ name: 'chart.png', kind: 'image', bytes: 12 * 1024 })).toBe(
      '🖼 chart.png (image, 12 KB)',
    );
  });
});
