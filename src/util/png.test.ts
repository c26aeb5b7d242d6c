import { describe, expect, it } from 'vitest';
import { readPng } from '../testing/png.js';
import { encodePng, paintPng } from './png.js';

describe('encodePng', () => {
  it('writes a PNG that an independent reader decodes to the same pixels', () => {
    const [width, height] = [5, 3];
    const rgb = Buffer.from(Array.from({ length: width * height * 3 }, (_, i) => (i * 37) % 256));
    const file = encodePng({ width, height, rgb });
    expect(file.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const png = readPng(file);
    expect([png.width, png.height]).toEqual([width, height]);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 3;
        expect(png.pixel(x, y)).toEqual([...rgb.subarray(at, at + 3)]);
      }
  });

  it('refuses pixels that do not fill the picture, naming the sizes', () => {
    expect(() => encodePng({ width: 2, height: 2, rgb: Buffer.alloc(11) })).toThrow(
      'encodePng: 2×2 RGB needs 12 bytes, got 11',
    );
  });
});

describe('paintPng', () => {
  it('paints each pixel from its coordinates', () => {
    const png = readPng(paintPng(4, 2, (x, y) => [x * 60, y * 200, 7]));
    expect(png.pixel(0, 0)).toEqual([0, 0, 7]);
    expect(png.pixel(3, 1)).toEqual([180, 200, 7]);
  });
});
