import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../types/errors.js';
import { errorCode } from '../util/guards.js';

/** A text file that goes with a question: its name and contents travel with the run (also to workers). */
export interface Attachment {
  name: string;
  text: string;
}

/** Larger files are refused: they belong in a context path or a tool, not in every agent's prompt. */
export const MAX_ATTACHMENT_BYTES = 1024 * 1024;

/**
 * Reads a question's attachments as UTF-8 text.
 *
 * @throws {ConfigError} naming the file when one is missing, too large or not text.
 */
export async function readAttachments(files: readonly string[]): Promise<Attachment[]> {
  return Promise.all(
    files.map(async (file) => {
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (error) {
        const code = errorCode(error);
        throw new ConfigError(
          `attachment ${file}: ${code === 'ENOENT' ? 'file not found' : (code ?? String(error))}`,
        );
      }
      if (bytes.length > MAX_ATTACHMENT_BYTES)
        throw new ConfigError(`attachment ${file}: larger than 1 MiB (${bytes.length} bytes)`);
      if (bytes.includes(0)) throw new ConfigError(`attachment ${file}: not a text file`);
      return { name: path.basename(file), text: bytes.toString('utf8') };
    }),
  );
}

/** The question as the agents read it: the attachments follow it, each fenced under its name. */
export function questionWithAttachments(question: string, attachments: readonly Attachment[]): string {
  if (attachments.length === 0) return question;
  const parts = attachments.map((a) => {
    // A fence longer than any backtick run inside, so the contents cannot close it.
    const longest = Math.max(2, ...[...a.text.matchAll(/`+/g)].map((m) => m[0].length));
    const fence = '`'.repeat(longest + 1);
    return `Attached file ${a.name}:\n${fence}\n${a.text.replace(/\n$/, '')}\n${fence}`;
  });
  return `${question}\n\n${parts.join('\n\n')}`;
}
