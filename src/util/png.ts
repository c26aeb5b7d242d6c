import { crc32, deflateSync } from 'node:zlib';

/**
 * The one PNG encoder of the project: screenshots (Xvfb's XWD re-encoded), test fixtures and the fake
 * servers' generated pictures all write their PNG bytes here (8-bit RGB, filter 0, zlib's default
 * deflate), so a fix to the format lands everywhere at once.
 */

/** An RGB picture: `width * height * 3` bytes, rows top to bottom. */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}

/** A PNG file of `image`. */
export function encodePng(image: RgbImage): Buffer {
  const { width, height, rgb } = image;
  const stride = width * 3;
  if (rgb.length !== stride * height)
    throw new Error(`encodePng: ${width}×${height} RGB needs ${stride * height} bytes, got ${rgb.length}`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB; compression, filter method and interlace stay 0
  // Each row is prefixed with its filter type, 0 (none).
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A `width`×`height` PNG whose pixel at x,y is `paint(x, y)` as [r, g, b]. */
export function paintPng(
  width: number,
  height: number,
  paint: (x: number, y: number) => readonly number[],
): Buffer {
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.set(paint(x, y), (y * width + x) * 3);
  return encodePng({ width, height, rgb });
}
