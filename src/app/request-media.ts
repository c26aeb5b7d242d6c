import { fileContent } from '../media/read-media-file.js';
import { formatBytes } from '../media/media-limits.js';
import { MassGenError } from '../types/errors.js';
import type { MediaPart } from '../types/media.js';

/**
 * Media that arrived inside a request (the web UI's upload, an OpenAI content part, an AI SDK file
 * part) checked and turned into {@link MediaPart}s, for `massgen --web`, `massgen serve` and
 * `massgen/ai-sdk` alike. The type is sniffed from the bytes by `src/media` (never taken from the
 * name or the client's claim), so every front end refuses the same files with the same words.
 */

/**
 * Bounds on a request's media. Each file also has its kind's limit (`src/media/media-limits.ts`:
 * 20 MB an image, 25 MB audio, 50 MB video, 32 MB a PDF).
 */
export interface RequestMediaLimits {
  /** The most files one request may carry. */
  maxFiles: number;
  /** All files together, in bytes. */
  maxTotalBytes: number;
}

/** The default bounds: 10 files, 50 MB in all. */
export const REQUEST_MEDIA_LIMITS: RequestMediaLimits = {
  maxFiles: 10,
  maxTotalBytes: 50 * 1024 * 1024,
};

/** A file a request carried that is refused: `tooLarge` for a size bound (HTTP 413), else bad input (400). */
export class RequestMediaError extends MassGenError {
  constructor(
    message: string,
    readonly tooLarge: boolean,
    hint?: string,
  ) {
    super('usage_error', message, hint ? { hint } : {});
    this.name = 'RequestMediaError';
  }
}

/** One file of a request: its name as the client gave it, and its bytes. */
export interface RequestFile {
  name: string;
  data: Uint8Array;
  /** Where the client sent it, for messages: `attachments[1]`, `messages[0].content[2]`. */
  where: string;
}

/**
 * The request's files as media parts, in order; `path` is set later by callers that store them.
 * @throws {RequestMediaError} naming the first file that is too large, empty or of a type no model takes.
 */
export async function requestMedia(
  files: readonly RequestFile[],
  limits: RequestMediaLimits = REQUEST_MEDIA_LIMITS,
): Promise<MediaPart[]> {
  if (files.length > limits.maxFiles)
    throw new RequestMediaError(
      `${files.length} files were attached; the limit is ${limits.maxFiles}`,
      true,
      'send fewer files at once',
    );
  const total = files.reduce((sum, f) => sum + f.data.byteLength, 0);
  if (total > limits.maxTotalBytes)
    throw new RequestMediaError(
      `the attached files come to ${formatBytes(total)}; the limit is ${formatBytes(limits.maxTotalBytes)} in all`,
      true,
      'attach fewer or smaller files',
    );
  const parts: MediaPart[] = [];
  for (const file of files) {
    const name = safeName(file.name);
    const content = await fileContent(file.data, { name, allowText: false });
    if (content.type === 'media') {
      parts.push(content.part);
      continue;
    }
    const reason =
      content.type === 'refused'
        ? content.reason
        : 'it is a text file, not an image, audio, video or PDF file: paste its text into the question';
    // The size refusals are the ones naming a limit; the rest are about what the file is.
    throw new RequestMediaError(`${file.where} (${name}): ${reason}`, /\blimit\b/.test(reason));
  }
  return parts;
}

/** A file name safe to show and to store: the last path segment, no control characters, at most 200 characters. */
export function safeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[/\\]/).at(-1) ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (base === '' || base === '.' || base === '..' ? 'attachment' : base).slice(0, 200);
}
