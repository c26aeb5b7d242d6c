import { paintPng } from '../../util/png.js';

/**
 * Small, real media files for the fake servers' media answers: each opens in an ordinary viewer or
 * player, and content sniffing (magic numbers) names its type.
 */

/** A `width`×`height` PNG of one colour (8-bit RGB). */
export function samplePng(
  width = 8,
  height = 8,
  rgb: readonly [number, number, number] = [32, 128, 224],
): Buffer {
  return paintPng(width, height, () => rgb);
}

/** `seconds` of a 440 Hz tone as a 16-bit mono PCM WAV at `rate` samples a second. */
export function sampleWav(seconds = 0.25, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  }
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8, 'ascii');
  head.writeUInt32LE(16, 16); // fmt chunk size
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(rate, 24);
  head.writeUInt32LE(rate * 2, 28); // byte rate
  head.writeUInt16LE(2, 32); // block align
  head.writeUInt16LE(16, 34); // bits per sample
  head.write('data', 36, 'ascii');
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** `frames` silent MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz): a short, playable MP3. */
export function sampleMp3(frames = 8): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

function box(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'ascii');
  return Buffer.concat([head, body]);
}

/** An MP4 container's opening boxes (`ftyp`, an empty `mdat`): what sniffing reads as `video/mp4`. */
export function sampleMp4(): Buffer {
  const ftyp = Buffer.concat([
    Buffer.from('isom', 'ascii'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2avc1mp41', 'ascii'),
  ]);
  return Buffer.concat([box('ftyp', ftyp), box('free', Buffer.alloc(8)), box('mdat', Buffer.alloc(0))]);
}
