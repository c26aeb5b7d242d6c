import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../media/read-media-file.js';
import { samplePng, sampleWav } from '../../testing/fake-server/media-samples.js';
import type { RunEvent } from '../../types/events.js';
import type { MediaRef } from '../../types/media.js';
import { startWebServer, type WebServer } from './web-server.js';

/**
 * The web UI's media: `GET /api/runs/:id/media?sha256=` serves a file a run's events name (an
 * attachment, a tool's image) only while its bytes still hash to the recorded value, with a type that
 * is never sniffed and never HTML; `POST /api/runs` takes uploads as JSON and refuses bad files with
 * one line naming them.
 */
const RUN = 'log_20261126_101500_123456';
let cwd: string;
let server: WebServer;
let base: string;
const png = samplePng(4, 4, [200, 30, 30]);
const chart = samplePng(6, 4, [30, 30, 200]);
const wav = sampleWav(0.05);
const html = Buffer.from('<html><script>alert(1)</script></html>');
const ref = (
  name: string,
  data: Buffer,
  file: string,
  mediaType: string,
  kind: MediaRef['kind'],
): MediaRef => ({
  name,
  path: file,
  mediaType,
  kind,
  bytes: data.length,
  sha256: sha256Hex(data),
});
let attachment: MediaRef;
let toolImage: MediaRef;
let toolAudio: MediaRef;
let gone: MediaRef;
let page: MediaRef;

const get = (route: string) =>
  fetch(`${base}${route}`, { headers: { authorization: `Bearer ${server.authToken}` } });
const media = (sha: string) => get(`/api/runs/${RUN}/media?sha256=${sha}`);
const start = (body: unknown) =>
  fetch(`${base}/api/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.authToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-media-'));
  const dir = path.join(cwd, '.massgen', 'massgen_logs', RUN);
  const workspace = path.join(cwd, '.massgen', 'workspaces', 'ws-a');
  const uploads = path.join(cwd, '.massgen', 'uploads', 'x');
  for (const d of [dir, workspace, uploads]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(uploads, 'photo.png'), png);
  fs.writeFileSync(path.join(workspace, 'chart.png'), chart);
  fs.writeFileSync(path.join(workspace, 'tone.wav'), wav);
  fs.writeFileSync(path.join(workspace, 'page.html'), html);
  fs.writeFileSync(path.join(workspace, 'edited.png'), png);
  attachment = ref('photo.png', png, path.join(uploads, 'photo.png'), 'image/png', 'image');
  toolImage = ref('chart.png', chart, 'chart.png', 'image/png', 'image');
  toolAudio = ref('tone.wav', wav, 'tone.wav', 'audio/wav', 'audio');
  page = ref('page.html', html, 'page.html', 'text/html', 'document');
  // Recorded with other bytes than the file now holds: an edited file is not the recorded one.
  gone = ref('edited.png', Buffer.from('other bytes'), 'edited.png', 'image/png', 'image');
  const events: RunEvent[] = [
    {
      type: 'run.started',
      runId: 'r',
      seq: 0,
      ts: 1,
      question: 'What is in the photo?',
      attachments: [attachment],
      agents: [],
      settings: {},
    },
    {
      type: 'tool.call.finished',
      runId: 'r',
      seq: 1,
      ts: 2,
      agentId: 'a',
      phase: 'coordination',
      callId: 'c1',
      toolName: 'read_media',
      result: 'ok',
      isError: false,
      durationMs: 1,
      media: [toolImage, toolAudio, gone, page],
    },
  ];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n'));
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ question: 'What is in the photo?' }));
  fs.writeFileSync(path.join(cwd, 'team.yaml'), 'agents: []\n');
  server = await startWebServer({ cwd, env: {}, port: 0, staticDir: cwd });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

describe('GET /api/runs/:id/media', () => {
  it('serves an attachment and a tool’s image and audio by hash, under their recorded type, never sniffed', async () => {
    for (const [r, type, data] of [
      [attachment, 'image/png', png],
      [toolImage, 'image/png', chart],
      [toolAudio, 'audio/wav', wav],
    ] as const) {
      const response = await media(r.sha256);
      expect(response.status, r.name).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-disposition')).toBe(`inline; filename="${r.name}"`);
      expect(Buffer.from(await response.arrayBuffer()).equals(data)).toBe(true);
    }
  });

  it('sends a recorded non-media type as a download, never as a page', async () => {
    const response = await media(page.sha256);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('says a file is no longer available when its bytes changed, and refuses unknown or malformed hashes', async () => {
    const changed = await media(gone.sha256);
    expect(changed.status).toBe(404);
    expect(((await changed.json()) as { error: string }).error).toBe(
      'edited.png is no longer available (moved, changed or deleted)',
    );
    const unknown = await media('0'.repeat(64));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toContain('names no media file');
    expect((await media('../../etc/passwd')).status).toBe(400);
    expect((await get(`/api/runs/nope/media?sha256=${attachment.sha256}`)).status).toBe(404);
  });
});

describe('POST /api/runs with attachments', () => {
  const b64 = (data: Buffer) => data.toString('base64');

  it('refuses a text file, bad base64 and too many files, naming the file', async () => {
    const text = await start({
      question: 'q',
      config: 'team.yaml',
      attachments: [{ name: 'notes.png', data: b64(Buffer.from('just some text\n')) }],
    });
    expect(text.status).toBe(400);
    expect(((await text.json()) as { error: string }).error).toMatch(/^attachments\[0\] \(notes\.png\): /);
    const bad = await start({
      question: 'q',
      config: 'team.yaml',
      attachments: [{ name: 'a.png', data: '%%%' }],
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain(
      'attachments[0] ("a.png") is not base64',
    );
    const many = await start({
      question: 'q',
      config: 'team.yaml',
      attachments: Array.from({ length: 11 }, (_, i) => ({ name: `p${i}.png`, data: b64(png) })),
    });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { error: string }).error).toContain('at most 10 files');
  });

  /**
   * A POST that declares `bytes` of body and sends none: the server answers from the declared length,
   * before the body, so nothing races the answer (an upload still being written when the server answers
   * and closes would depend on the machine's speed — a reset instead of the 413 on a loaded machine).
   */
  const answerToDeclaredLength = (route: string, bytes: number) =>
    new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const request = http.request(`${base}${route}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${server.authToken}`,
          'content-type': 'application/json',
          'content-length': String(bytes),
        },
      });
      request.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode, body });
          request.destroy();
        });
      });
      request.on('error', reject);
      request.flushHeaders();
    });

  it('refuses a body over the upload bound with 413 and says what fits', async () => {
    const { status, body } = await answerToDeclaredLength('/api/runs', 70 * 1024 * 1024);
    expect(status).toBe(413);
    expect((JSON.parse(body) as { error: string }).error).toMatch(/attach at most 50 MiB of files in all/);
  });

  it('keeps other API bodies at 1 MiB', async () => {
    const { status, body } = await answerToDeclaredLength('/api/validate', 2 * 1024 * 1024);
    expect(status).toBe(413);
    expect(body).toContain('larger than 1 MiB');
  });
});
