import { createHash } from 'node:crypto';
import type { MediaKind, MediaPart } from '../types/media.js';
import { paintPng } from '../util/png.js';

/**
 * Small, valid media files built in memory for tests (no binary fixtures in the repository): each
 * starts with its format's real signature and structure, so sniffers and vendors' checks accept it,
 * and each is distinct, so a test can tell byte for byte which file arrived where.
 */

/** A PNG of `width`×`height` pixels of one RGB colour. */
export function tinyPng(width = 2, height = 2, rgb: readonly [number, number, number] = [255, 0, 0]): Buffer {
  return paintPng(width, height, () => rgb);
}

/**
 * A baseline JPEG: one 8×8 grey block. Its Huffman tables hold one code each (DC difference 0, end of
 * block), so the whole scan is two bits.
 */
export function tinyJpeg(): Buffer {
  const segment = (marker: number, body: readonly number[]) => [
    0xff,
    marker,
    (body.length + 2) >> 8,
    (body.length + 2) & 0xff,
    ...body,
  ];
  const oneCodeTable = (tableClass: number) => [tableClass << 4, 1, ...Array<number>(15).fill(0), 0];
  return Buffer.from([
    0xff,
    0xd8,
    ...segment(0xdb, [0, ...Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]),
    ...segment(0xc4, oneCodeTable(0)),
    ...segment(0xc4, oneCodeTable(1)),
    ...segment(0xda, [1, 1, 0, 0, 63, 0]),
    0x3f,
    0xff,
    0xd9,
  ]);
}

/** A mono 16-bit PCM WAV at 8 kHz: `samples` of a square wave. */
export function tinyWav(samples = 64): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(i % 16 < 8 ? 8000 : -8000, i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** One silent MPEG-1 Layer III frame (128 kbit/s, 44.1 kHz): 417 bytes. */
export function tinyMp3(): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64], 0);
  return frame;
}

/** An MP4 container: `ftyp`, an empty `moov`-less `free` box and a small `mdat`. */
export function tinyMp4(): Buffer {
  const box = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length + 8, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body]);
  };
  return Buffer.concat([
    box('ftyp', Buffer.from('isom\u0000\u0000\u0002\u0000isomiso2mp41', 'latin1')),
    box('free', Buffer.alloc(0)),
    box('mdat', Buffer.from(Array.from({ length: 32 }, (_, i) => i))),
  ]);
}

/** The page and type of {@link tinyPdf}: sizes in PDF points, `x`/`y` the text's baseline from the bottom left. */
export interface TinyPdfOptions {
  width?: number;
  height?: number;
  fontSize?: number;
  x?: number;
  y?: number;
}

/** A one-page PDF showing `text` in Helvetica, with a correct cross-reference table. */
export function tinyPdf(text = 'Hello from a PDF', options: TinyPdfOptions = {}): Buffer {
  const { width = 200, height = 80, fontSize = 12, x = 20, y = 40 } = options;
  const stream = `BT /F1 ${fontSize} Tf ${x} ${y} Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A media part of `data`, as the app builds one from a file. */
export function mediaPartOf(name: string, mediaType: string, kind: MediaKind, data: Uint8Array): MediaPart {
  return {
    name,
    mediaType,
    kind,
    bytes: data.byteLength,
    sha256: createHash('sha256').update(data).digest('hex'),
    data: new Uint8Array(data),
  };
}

/** One file of every kind: PNG, JPEG, WAV, MP3, MP4 and PDF parts. */
export function sampleMedia() {
  return {
    png: mediaPartOf('chart.png', 'image/png', 'image', tinyPng()),
    jpeg: mediaPartOf('photo.jpg', 'image/jpeg', 'image', tinyJpeg()),
    wav: mediaPartOf('voice.wav', 'audio/wav', 'audio', tinyWav()),
    mp3: mediaPartOf('song.mp3', 'audio/mpeg', 'audio', tinyMp3()),
    mp4: mediaPartOf('clip.mp4', 'video/mp4', 'video', tinyMp4()),
    pdf: mediaPartOf('report.pdf', 'application/pdf', 'document', tinyPdf()),
  };
}
