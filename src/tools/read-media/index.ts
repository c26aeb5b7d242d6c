export {
  createReadMediaToolProvider,
  readMediaDefinition,
  type ReadMediaToolOptions,
} from './read-media-tool-provider.js';
