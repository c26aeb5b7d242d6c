import { deflateSync } from 'node:zlib';

/**
 * A screenshot without ImageMagick: Xvfb keeps its screen in a file (`-fbdir`) in the XWD format, so
 * a picture is that file's pixels re-encoded as PNG (8-bit RGB, no filter, deflated with zlib).
 */

/** An RGB picture: `width * height * 3` bytes, rows top to bottom. */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Buffer;
}

/** The shift and width of a colour mask (`0xff0000` → 16, 8 bits). */
function maskShape(mask: number): { shift: number; bits: number } {
  if (mask === 0) return { shift: 0, bits: 0 };
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  let bits = 0;
  while (((mask >>> (shift + bits)) & 1) === 1) bits++;
  return { shift, bits };
}

/** Decodes a TrueColor ZPixmap XWD file (what Xvfb writes at depth 16, 24 or 32). */
export function decodeXwd(data: Buffer): RgbImage {
  if (data.length < 100) throw new Error('not an XWD file: too short');
  const field = (index: number) => data.readUInt32BE(index * 4);
  const headerSize = field(0);
  const [version, format, width, height, byteOrder, bitsPerPixel, bytesPerLine] = [
    field(1),
    field(2),
    field(4),
    field(5),
    field(7),
    field(11),
    field(12),
  ];
  const masks = [field(14), field(15), field(16)].map(maskShape);
  const ncolors = field(19);
  if (version !== 7 || format !== 2)
    throw new Error(`unsupported XWD file (version ${version}, format ${format})`);
  if (bitsPerPixel !== 32 && bitsPerPixel !== 16 && bitsPerPixel !== 24)
    throw new Error(`unsupported XWD pixel size ${bitsPerPixel}`);
  const start = headerSize + ncolors * 12;
  if (data.length < start + bytesPerLine * height) throw new Error('XWD file is shorter than its picture');
  const bytes = bitsPerPixel / 8;
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    const row = start + y * bytesPerLine;
    for (let x = 0; x < width; x++) {
      const at = row + x * bytes;
      let pixel = 0;
      for (let b = 0; b < bytes; b++) {
        const byte = data[at + (byteOrder === 0 ? b : bytes - 1 - b)]!;
        pixel += byte * 2 ** (8 * b);
      }
      const out = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const { shift, bits } = masks[c]!;
        const max = 2 ** bits - 1;
        const value = bits === 0 ? 0 : Math.floor(pixel / 2 ** shift) % 2 ** bits;
        rgb[out + c] = bits === 8 ? value : Math.round((value * 255) / max);
      }
    }
  }
  return { width, height, rgb };
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(parts: readonly Buffer[]): number {
  let crc = 0xffffffff;
  for (const part of parts) for (const byte of part) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32([head.subarray(4), body]), 0);
  return Buffer.concat([head, body, crc]);
}

/** A PNG file of `image`. */
export function encodePng(image: RgbImage): Buffer {
  const { width, height, rgb } = image;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
