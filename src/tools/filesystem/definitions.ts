import type { ToolDefinition } from '../../types/messages.js';

/** Largest file read_file and edit_file handle. */
export const MAX_TEXT_FILE_BYTES = 2 * 1024 * 1024;
/** Lines read_file shows when `max_lines` is not given. */
export const DEFAULT_MAX_LINES = 2000;
/** Entries list_directory shows at most. */
export const MAX_LIST_ENTRIES = 1000;

const relative =
  'Paths are relative to your workspace (absolute paths work too, but only inside the folders you may use).';

/** The built-in filesystem tools, as offered to the model. */
export const FILESYSTEM_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'read_file',
    description: `Read a text file and return its lines. ${relative} Large files: use offset_line and max_lines to read a part (default: the first ${DEFAULT_MAX_LINES} lines). Binary files and files over 2 MB are refused.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to read, relative to your workspace.' },
        offset_line: { type: 'integer', minimum: 1, description: 'First line to show (1-based). Default 1.' },
        max_lines: {
          type: 'integer',
          minimum: 1,
          description: `How many lines to show at most. Default ${DEFAULT_MAX_LINES}.`,
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnly: true },
  },
  {
    name: 'write_file',
    description: `Create a file or replace its whole content. Missing parent folders are created. ${relative} Writes are allowed in your workspace (and, for the final presenter only, in writable context paths).`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to write, relative to your workspace.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, confined: true },
  },
  {
    name: 'edit_file',
    description: `Replace an exact piece of text in a file. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true. ${relative}`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to edit, relative to your workspace.' },
        old_string: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
        new_string: { type: 'string', description: 'The text to put in its place.' },
        replace_all: {
          type: 'boolean',
          description: 'Replace every occurrence instead of requiring exactly one. Default false.',
        },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, confined: true },
  },
  {
    name: 'list_directory',
    description: `List a folder: one entry per line, folders ending in "/", files with their size, sorted by name. ${relative} Without a path, lists your workspace.`,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'The folder to list, relative to your workspace. Default: the workspace.',
        },
      },
      additionalProperties: false,
    },
    annotations: { readOnly: true },
  },
  {
    name: 'delete_file',
    description: `Delete one file (not a folder). Only files you created or read during this run may be deleted. ${relative}`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to delete, relative to your workspace.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, confined: true },
  },
  {
    name: 'copy_file',
    description: `Copy a file or a whole folder into your own workspace, e.g. from another agent's snapshot or a context path. The destination must be inside your workspace; missing parent folders are created, an existing file is replaced, an existing folder is not. Symbolic links inside a copied folder are skipped. ${relative}`,
    parameters: {
      type: 'object',
      properties: {
        source: { type: 'string', description: 'The file or folder to copy (anywhere you may read).' },
        destination: {
          type: 'string',
          description:
            'The new path inside your workspace, relative to it (the full target path, not a folder to copy into).',
        },
      },
      required: ['source', 'destination'],
      additionalProperties: false,
    },
    annotations: { readOnly: false, destructive: true, confined: true },
  },
];
