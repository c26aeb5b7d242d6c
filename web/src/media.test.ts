import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/types/events.js';
import type { MediaRef } from '../../src/types/media.js';
import { latestScreenshots } from './browser-shots.js';
import { attachmentProblem, mediaKindOfName, mediaUrl } from './media.js';
import { replay } from './run-view.js';

const ref = (name: string, kind: MediaRef['kind'], sha: string): MediaRef => ({
  name,
  path: name,
  mediaType: kind === 'image' ? 'image/png' : 'audio/wav',
  kind,
  bytes: 10,
  sha256: sha.repeat(64),
});

describe('media in the page', () => {
  it('keeps the attachments and each tool call’s media from the events, and the screenshot by its hash', () => {
    const events: RunEvent[] = [
      {
        type: 'run.started',
        runId: 'r',
        seq: 0,
        ts: 0,
        question: 'q',
        attachments: [ref('photo.png', 'image', 'a')],
        agents: [{ agentId: 'x', anonymousId: 'agent1', backendType: 'openai', model: 'm' }],
        settings: {},
      },
      {
        type: 'tool.call.started',
        runId: 'r',
        seq: 1,
        ts: 1,
        agentId: 'x',
        phase: 'coordination',
        callId: 'c1',
        toolName: 'browser_screenshot',
        arguments: {},
      },
      {
        type: 'tool.call.finished',
        runId: 'r',
        seq: 2,
        ts: 2,
        agentId: 'x',
        phase: 'coordination',
        callId: 'c1',
        toolName: 'browser_screenshot',
        result: 'screenshot: shots/old-format.png',
        isError: false,
        durationMs: 1,
        media: [ref('shots/001.png', 'image', 'b')],
      },
    ];
    const view = replay(events);
    expect(view.attachments.map((a) => a.name)).toEqual(['photo.png']);
    expect(view.streams['x']?.turns[0]?.tools[0]?.media?.map((m) => m.name)).toEqual(['shots/001.png']);
    // The recorded image wins over the path in the result's text.
    expect(latestScreenshots(view.streams)).toEqual([
      { agentId: 'x', path: 'shots/001.png', callId: 'c1', sha256: 'b'.repeat(64) },
    ]);
    expect(mediaUrl('run 1', 'b'.repeat(64))).toBe(`/api/runs/run%201/media?sha256=${'b'.repeat(64)}`);
  });

  it('names the kind of a delivered file from its name, and refuses too many, too large or empty files', () => {
    expect(['a.PNG', 'b.mp3', 'c.webm', 'd.pdf', 'e'].map(mediaKindOfName)).toEqual([
      'image',
      'audio',
      'video',
      null,
      null,
    ]);
    const file = (name: string, size: number) => ({ name, size }) as File;
    expect(attachmentProblem([file('a.png', 10)])).toBeNull();
    expect(attachmentProblem(Array.from({ length: 11 }, (_, i) => file(`${i}.png`, 1)))).toBe(
      '11 files: at most 10 may be attached to one question',
    );
    expect(attachmentProblem([file('big.mp4', 60 * 1024 * 1024)])).toBe(
      'the files come to 60.0 MB: at most 50 MB may be attached in all',
    );
    expect(attachmentProblem([file('empty.png', 0)])).toBe('empty.png is empty (0 bytes)');
  });
});
