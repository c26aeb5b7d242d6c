/** One agent's browser, resolved from `tools.browser` and the agent's workspace. */
export interface BrowserSettings {
  /** The Chromium to start. */
  executablePath: string;
  headless: boolean;
  /** Only these origins may be loaded; undefined: any. */
  allowedOrigins?: readonly string[];
  /** The agent's workspace: screenshots and downloads are saved under it. */
  workspace: string;
  /** massgen's environment; Chromium gets a scrubbed copy (browserEnv), never its keys. */
  env: Readonly<Record<string, string | undefined>>;
}
