/**
 * CI's date-independence pass (`.ci/run`) moves massgen's clock a year ahead with libfaketime, an
 * `LD_PRELOAD` library every child process inherits. Some tools a test starts — Chromium, Xvfb,
 * redis-server, Python inside bubblewrap — hang or fail under it, and they are not what such a test
 * checks for date-dependence. These helpers give them the real clock; massgen's own process keeps the
 * moved one.
 */

const isClockPreload = (name: string) => name === 'LD_PRELOAD' || name.startsWith('FAKETIME');

/** `env` (default: this process's) without the clock-moving preload. */
export function realClockEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !isClockPreload(e[0])),
  );
}

/**
 * Removes the preload from this process's environment, so every child it starts from now on — also
 * the ones massgen's code under test starts with `process.env` — gets the real clock. For test files
 * whose subject starts such a tool itself (a browser, a virtual desktop).
 */
export function useRealClockForChildren(): void {
  for (const name of Object.keys(process.env)) if (isClockPreload(name)) delete process.env[name];
}
