import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext, ToolResult } from '../../types/tool.js';
import { untilAborted } from '../../util/abort.js';
import { pngMedia } from '../png-media.js';
import type { ToolProvider } from '../tool-provider.js';
import type { BrowserSession } from './browser-session.js';
import { BROWSER_TOOLS, type BrowserToolName } from './browser-tools.js';
import type { BrowserSettings } from './settings.js';

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The `browser_*` tools of one agent. Playwright is imported, and Chromium started, on the first
 * browser call — an agent that never browses costs nothing; `close` (the end of the run) stops it.
 * A failed action comes back to the model as a tool error with Playwright's first line.
 */
export function createBrowserToolProvider(settings: BrowserSettings): ToolProvider {
  let session: BrowserSession | null = null;
  let opening: Promise<BrowserSession> | null = null;
  let closed = false;
  const open = (): Promise<BrowserSession> => {
    opening ??= import('./browser-session.js').then(({ BrowserSession }) => {
      session = new BrowserSession(settings);
      if (closed) void session.close();
      return session;
    });
    return opening;
  };
  const run = async (name: BrowserToolName, args: Record<string, unknown>): Promise<string | ToolResult> => {
    const browser = await open();
    switch (name) {
      case 'browser_navigate':
        return browser.navigate(str(args['url']) ?? '');
      case 'browser_snapshot':
        return browser.snapshot();
      case 'browser_click':
        return browser.click(str(args['target']) ?? '');
      case 'browser_type':
        return browser.type(str(args['target']) ?? '', str(args['text']) ?? '', args['submit'] === true);
      case 'browser_screenshot': {
        const saved = await browser.screenshot(args['full_page'] === true);
        // The picture goes to the model too (the core drops it, with a note, for a model without image
        // input); the path stays in the text for the file tools and for people reading the transcript.
        const data = await readFile(path.join(settings.workspace, saved));
        return {
          content: `screenshot: ${saved}\nSaved in your workspace (the image is attached for you to look at).`,
          media: [pngMedia(data, saved)],
        };
      }
      case 'browser_download': {
        const target = str(args['target']);
        const url = str(args['url']);
        if ((target === undefined) === (url === undefined)) throw new Error('give either target or url');
        const saved = await browser.download(target, url);
        return `download: ${saved}\nSaved in your workspace.`;
      }
    }
  };
  return {
    name: 'browser',
    start: async () => {},
    tools: () => BROWSER_TOOLS,
    async call(toolName: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
      if (!BROWSER_TOOLS.some((t) => t.name === toolName)) {
        return { content: `browser has no tool named "${toolName}"`, isError: true };
      }
      try {
        const result = await untilAborted(run(toolName as BrowserToolName, args), context.signal);
        return typeof result === 'string' ? { content: result } : result;
      } catch (error) {
        if (context.signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        // Playwright's messages carry a call log after the first lines; the model needs the gist.
        const gist = message.split('\n').slice(0, 2).join(' ').trim();
        return { content: `${toolName} failed: ${gist}`, isError: true };
      }
    },
    async close() {
      closed = true;
      await opening?.catch(() => {});
      await session?.close();
    },
  };
}
