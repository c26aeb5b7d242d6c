export { createBrowserToolProvider } from './browser-tool-provider.js';
export { BROWSER_TOOL_NAMES, BROWSER_TOOLS } from './browser-tools.js';
export { findChromium } from './chromium-path.js';
export { originAllowed } from './origins.js';
export type { BrowserSettings } from './settings.js';
