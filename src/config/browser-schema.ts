import { z } from 'zod';

/** One origin: `scheme://host[:port]`, nothing after it (e.g. `https://example.com`, `http://127.0.0.1:8080`). */
const OriginSchema = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return /^https?:$/.test(url.protocol) && url.origin === value.replace(/\/$/, '');
    } catch {
      return false;
    }
  },
  { error: 'must be an origin: http(s)://host[:port] with no path, e.g. https://example.com' },
);

const BrowserObjectSchema = z.strictObject({
  /** Run Chromium without a window (default true; a window needs a display). */
  headless: z.boolean().default(true),
  /** Only these origins may be loaded (pages and everything they fetch); unset: any. */
  allowed_origins: z.array(OriginSchema).optional(),
  /** The Chromium (or Chrome) to run; default: the first of chromium, chromium-browser, google-chrome on the machine. */
  executable_path: z.string().min(1).optional(),
});

/**
 * `tools: { browser: true | {…} }`: a real Chromium per agent, driven with Playwright, and the
 * `browser_*` tools over it (docs/browser.md). `true` is `{}` with the defaults; `false` is no browser.
 */
export const BrowserConfigSchema = z
  .union([z.boolean(), BrowserObjectSchema])
  .transform((value) =>
    value === false ? undefined : value === true ? BrowserObjectSchema.parse({}) : value,
  );

export type BrowserConfig = z.output<typeof BrowserObjectSchema>;
