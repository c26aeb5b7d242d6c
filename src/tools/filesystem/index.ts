export {
  createFilesystemToolProvider,
  type FilesystemToolProviderOptions,
} from './filesystem-tool-provider.js';
export { FILESYSTEM_TOOLS, MAX_TEXT_FILE_BYTES, DEFAULT_MAX_LINES, MAX_LIST_ENTRIES } from './definitions.js';
