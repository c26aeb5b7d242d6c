import { loadAttachments, type Attachment } from '../media/attachments.js';
import { MAX_TEXT_ATTACHMENT_BYTES, aKind } from '../media/media-limits.js';
import { ConfigError } from '../types/errors.js';

export { questionWithAttachments, type Attachment } from '../media/attachments.js';

/** Larger files are refused: they belong in a context path or a tool, not in every agent's prompt. */
export const MAX_ATTACHMENT_BYTES = MAX_TEXT_ATTACHMENT_BYTES;

/**
 * Reads a batch line's (or an MCP request's) attachments as UTF-8 text: these travel as text to
 * workers, so media files are refused here (a single run takes them: `massgen --attach`).
 *
 * @throws {ConfigError} naming the file when one is missing, too large, not text, or a media file.
 */
export async function readAttachments(files: readonly string[]): Promise<Attachment[]> {
  const loaded = await Promise.all(
    files.map(async (file) => {
      const { texts, media } = await loadAttachments([file], { baseDir: process.cwd() });
      const part = media[0];
      if (part)
        throw new ConfigError(
          `attachment ${file}: is ${aKind(part.kind)}, and batch and queued runs take text attachments only: run it alone with massgen --attach`,
        );
      return texts;
    }),
  );
  return loaded.flat();
}
