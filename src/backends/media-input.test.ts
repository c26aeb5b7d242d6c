import { describe, expect, it } from 'vitest';
import { sampleMedia, mediaPartOf, tinyPng } from '../testing/media-fixtures.js';
import { MEDIA_KINDS } from '../types/media.js';
import { ANTHROPIC_FORMATS, mediaGate, XAI_FORMATS } from './media-input.js';
import { loadAllBackendFactories } from './registry.js';

const backendFactories = await loadAllBackendFactories();

describe('every backend says what media its model takes', () => {
  it('declares mediaIn, in config order, consistent with its imagesIn capability', () => {
    for (const factory of backendFactories) {
      expect(factory.mediaIn, factory.type).toBeDefined();
      const input = factory.mediaIn!({ model: factory.type === 'grok' ? 'grok-4' : 'a-model' });
      expect(
        input.kinds.every((k) => MEDIA_KINDS.includes(k)),
        factory.type,
      ).toBe(true);
      expect([...input.kinds].sort((a, b) => MEDIA_KINDS.indexOf(a) - MEDIA_KINDS.indexOf(b))).toEqual(
        input.kinds,
      );
      expect(input.kinds.includes('image'), factory.type).toBe(factory.capabilities.imagesIn);
    }
  });

  it('lets media_in replace the kinds of every backend that sends media', () => {
    for (const factory of backendFactories.filter((f) => f.capabilities.imagesIn)) {
      expect(
        factory.mediaIn!({ model: 'a-model', mediaIn: ['document', 'video'] }).kinds,
        factory.type,
      ).toEqual(['video', 'document']);
    }
  });
});

describe('mediaGate', () => {
  const { png, pdf } = sampleMedia();
  const gif = mediaPartOf('anim.gif', 'image/gif', 'image', Buffer.from('GIF89a'));

  it('passes what the model and the wire format take, within the limit', () => {
    const gate = mediaGate(
      { kinds: ['image', 'document'], maxBytes: { image: 5 * 1024 * 1024 } },
      ANTHROPIC_FORMATS,
    );
    expect(gate(png)).toBeNull();
    expect(gate(pdf)).toBeNull();
    expect(gate(gif)).toBeNull();
  });

  it('says why a part cannot go: its kind, its format or its size', () => {
    expect(mediaGate({ kinds: ['image'] }, XAI_FORMATS)(pdf)).toBe('this model does not take document files');
    expect(mediaGate({ kinds: ['image'] }, XAI_FORMATS)(gif)).toBe(
      'this provider does not take image/gif (it takes image/jpeg, image/png)',
    );
    const big = mediaPartOf('big.png', 'image/png', 'image', tinyPng(64, 64));
    expect(mediaGate({ kinds: ['image'], maxBytes: { image: 10 } }, {})(big)).toBe(
      "larger than the provider's 10 bytes limit for image files",
    );
  });
});
