export { createComputerToolProvider, type ComputerToolOptions } from './computer-tool-provider.js';
export { COMPUTER_TOOL_NAMES } from './definitions.js';
export { startXvfb, type VirtualDisplay } from './xvfb.js';
export { decodeXwd, encodePng, type RgbImage } from './xwd-png.js';
export {
  NATIVE_ACTIONS,
  NATIVE_COMPUTER_TOOL_NAME,
  nativeComputerTool,
  parseNativeAction,
  type NativeAction,
} from './native-actions.js';
