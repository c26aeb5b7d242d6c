import type { ToolDefinition } from '../../types/messages.js';

/** Names of the browser tools, as the model sees them. */
export const BROWSER_TOOL_NAMES = [
  'browser_navigate',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_screenshot',
  'browser_download',
] as const;
export type BrowserToolName = (typeof BROWSER_TOOL_NAMES)[number];

const TARGET = {
  type: 'string',
  description:
    'The element, as a Playwright selector: role=button[name="Send"], role=textbox[name="Email"] (roles and names as in browser_snapshot), text=Sign in, #id or any CSS selector.',
} as const;

/**
 * The tools' definitions. Actions that can change the world outside (navigating, clicking, typing)
 * are not read-only, so planning mode defers them; reading the page is.
 */
export const BROWSER_TOOLS: readonly ToolDefinition[] = Object.freeze([
  {
    name: 'browser_navigate',
    description: 'Open a URL in your browser. Returns the page title, its URL and an accessibility snapshot.',
    parameters: {
      type: 'object',
      properties: { url: { type: 'string', description: 'The address, e.g. https://example.com/' } },
      required: ['url'],
      additionalProperties: false,
    },
  },
  {
    name: 'browser_snapshot',
    description:
      'Read the current page as an accessibility snapshot (roles, names, text, values), the way to see what is on it.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnly: true },
  },
  {
    name: 'browser_click',
    description: 'Click an element of the current page. Returns the page snapshot afterwards.',
    parameters: {
      type: 'object',
      properties: { target: TARGET },
      required: ['target'],
      additionalProperties: false,
    },
  },
  {
    name: 'browser_type',
    description:
      'Type text into a field of the current page (replacing what it held); with submit: true, press Enter afterwards.',
    parameters: {
      type: 'object',
      properties: {
        target: TARGET,
        text: { type: 'string' },
        submit: { type: 'boolean', description: 'Press Enter after typing' },
      },
      required: ['target', 'text'],
      additionalProperties: false,
    },
  },
  {
    name: 'browser_screenshot',
    description:
      'Save a PNG screenshot of the current page into your workspace (screenshots/), and return its path.',
    parameters: {
      type: 'object',
      properties: { full_page: { type: 'boolean', description: 'The whole page, not just the window' } },
      additionalProperties: false,
    },
    annotations: { readOnly: true },
  },
  {
    name: 'browser_download',
    description:
      'Download a file into your workspace (downloads/): by clicking an element that starts a download, or from a URL. Returns the saved path.',
    parameters: {
      type: 'object',
      properties: { target: TARGET, url: { type: 'string', description: 'Download this address instead' } },
      additionalProperties: false,
    },
  },
]);
