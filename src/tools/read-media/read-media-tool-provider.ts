import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { aKind, formatBytes, kindNoun, MAX_ANY_MEDIA_BYTES } from '../../media/media-limits.js';
import type { MediaInput } from '../../types/backend.js';
import { ToolError } from '../../types/errors.js';
import type { ToolDefinition } from '../../types/messages.js';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { errorCode } from '../../util/guards.js';
import { isWithin, safeOpenForRead } from '../permissions/check-path.js';
import type { CheckPath } from '../permissions/path-policy.js';
import type { ToolProvider } from '../tool-provider.js';

/** Options of {@link createReadMediaToolProvider}. */
export interface ReadMediaToolOptions {
  /** The path policy of the agent's file tools (its workspace and context paths). */
  checkPath: CheckPath;
  /** The agent's workspace: media read there is recorded by its path relative to it. */
  workspace: string;
  /** What the agent's model takes, and its provider's limits. */
  media: MediaInput;
}

const refuse = (content: string): ToolResult => ({ content, isError: true });

/** The `read_media` definition for a model that takes these kinds. */
export function readMediaDefinition(kinds: MediaInput['kinds']): ToolDefinition {
  const what = kinds.map((k) => kindNoun(k, true)).join(', ');
  return {
    name: 'read_media',
    description: `Look at a media file in your workspace or a context path: it is shown to you as the file itself, not as text. Your model takes: ${what}. Paths are relative to your workspace. For text files use read_file.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'The file, relative to your workspace.' } },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnly: true },
  };
}

/**
 * `read_media`: an agent reads an image, audio, video or PDF file from the folders its file tools may
 * read (the same path policy as `read_file`), and its model receives the file as a media part
 * ({@link ToolResult.media}); events record the file by path and hash. Offered only to agents whose
 * model takes some kind; a kind it does not take is refused with a sentence, not sent.
 */
export function createReadMediaToolProvider(options: ReadMediaToolOptions): ToolProvider {
  const { checkPath, media } = options;
  const definition = readMediaDefinition(media.kinds);
  let workspaceReal: string | undefined;
  const workspace = async () =>
    (workspaceReal ??= await realpath(options.workspace).catch(() => path.resolve(options.workspace)));

  const readMedia = async (given: string, context: ToolContext): Promise<ToolResult> => {
    const shown = JSON.stringify(given);
    const decision = await checkPath(given, 'read', context.phase);
    if (!decision.allowed) return refuse(decision.reason);
    let data: Uint8Array;
    try {
      const handle = await safeOpenForRead(decision.realPath);
      try {
        const info = await handle.stat();
        if (info.isDirectory())
          return refuse(`${shown} is a folder; use list_directory to see what is in it.`);
        if (!info.isFile()) return refuse(`${shown} is not a regular file.`);
        if (info.size > MAX_ANY_MEDIA_BYTES)
          return refuse(`${shown} is ${formatBytes(info.size)}, more than read_media handles.`);
        data = new Uint8Array(await handle.readFile());
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') return refuse(`${shown} does not exist.`);
      if (code === 'EACCES' || code === 'EPERM')
        return refuse(`${shown} cannot be read: the operating system denied permission.`);
      if (code === 'ELOOP') return refuse(`${shown} is a symbolic link that changed; the read was refused.`);
      throw error;
    }
    const root = await workspace();
    const inWorkspace = isWithin(decision.realPath, root);
    // The sniffer loads with the first read_media call: a run whose agents never call it never loads it.
    const { TEXT_NOT_MEDIA, fileContent } = await import('../../media/read-media-file.js');
    const content = await fileContent(data, {
      name: path.basename(decision.realPath),
      // Workspace files by their place in it (the same in every copy of the workspace); others absolute.
      path: inWorkspace ? path.relative(root, decision.realPath) : decision.realPath,
      allowText: false,
      ...(media.maxBytes ? { maxBytes: media.maxBytes } : {}),
    });
    if (content.type !== 'media') {
      const reason = content.type === 'refused' ? content.reason : TEXT_NOT_MEDIA;
      return refuse(`${shown}: ${reason}${reason === TEXT_NOT_MEDIA ? ': read it with read_file' : ''}.`);
    }
    const { part } = content;
    if (!media.kinds.includes(part.kind))
      return refuse(
        `${shown} is ${aKind(part.kind)} (${part.mediaType}), which your model cannot take; it takes ${media.kinds.map((k) => kindNoun(k, true)).join(', ')}.`,
      );
    return {
      content: `Showing ${shown} (${part.mediaType}, ${formatBytes(part.bytes)}).`,
      media: [part],
    };
  };

  return {
    name: 'read_media',
    start: async () => {},
    tools: () => [definition],
    async precheck(_name, args, context) {
      if (typeof args.path !== 'string') return null;
      const decision = await checkPath(args.path, 'read', context.phase);
      // A permission rule's denial is the rules engine's to report (it names the rule); `call` still refuses.
      return decision.allowed || decision.byRule === true ? null : decision.reason;
    },
    async call(name, args, context) {
      context.signal.throwIfAborted();
      if (name !== 'read_media') throw new ToolError(`read_media has no tool named "${name}"`);
      if (typeof args.path !== 'string')
        return refuse('Invalid arguments for read_media: "path" must be a string.');
      return readMedia(args.path, context);
    },
    close: async () => {},
  };
}
