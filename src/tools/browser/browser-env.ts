import { scrubEnv } from '../execute-command/scrub-env.js';

/** What a browser with a window needs to find its display. */
const DISPLAY_VARIABLES = ['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR'];

/**
 * Chromium's environment: never massgen's own (API keys), only what a command gets (PATH, locale,
 * TERM, TZ — see scrubEnv) with HOME and TMPDIR in `home`, a folder of the browser's own, and with a
 * window (`headless: false`) the variables that find the display.
 */
export function browserEnv(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
  headless: boolean,
): Record<string, string> {
  const out = scrubEnv(env, { home, tmpdir: home });
  if (headless) return out;
  for (const name of DISPLAY_VARIABLES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  // X finds its cookie in the real home by default; HOME is no longer that.
  if (out.XAUTHORITY === undefined && env.HOME !== undefined) out.XAUTHORITY = `${env.HOME}/.Xauthority`;
  return out;
}
