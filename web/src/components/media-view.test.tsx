import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MediaList, MediaView } from './media-view.js';

describe('MediaView', () => {
  it('shows an image inline, audio and video in players, a PDF as a link', () => {
    const html = (kind: 'image' | 'audio' | 'video' | 'document') =>
      renderToStaticMarkup(<MediaView url="/u" kind={kind} name="f" />);
    expect(html('image')).toContain('<img src="/u" alt="f"/>');
    expect(html('audio')).toContain('<audio controls="" preload="metadata" src="/u" aria-label="f">');
    expect(html('video')).toContain('<video controls="" preload="metadata" src="/u" aria-label="f">');
    expect(html('document')).toContain('<a href="/u" target="_blank" rel="noreferrer">f</a>');
  });

  it('lists recorded media by hash under a label, and nothing without any', () => {
    const sha = 'c'.repeat(64);
    const html = renderToStaticMarkup(
      <MediaList
        runId="r1"
        label="Attached files"
        refs={[{ name: 'a.png', mediaType: 'image/png', kind: 'image', bytes: 2048, sha256: sha }]}
      />,
    );
    expect(html).toContain('role="group" aria-label="Attached files"');
    expect(html).toContain(`src="/api/runs/r1/media?sha256=${sha}"`);
    expect(html).toContain('a.png · 2.0 KiB');
    expect(renderToStaticMarkup(<MediaList runId="r1" label="x" refs={[]} />)).toBe('');
  });
});
