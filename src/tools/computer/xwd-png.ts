import type { RgbImage } from '../../util/png.js';

export { encodePng, type RgbImage } from '../../util/png.js';

/**
 * A screenshot without ImageMagick: Xvfb keeps its screen in a file (`-fbdir`) in the XWD format, so
 * a picture is that file's pixels re-encoded as PNG by the shared encoder (src/util/png.ts).
 */

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
