import { existsSync } from 'node:fs';
import path from 'node:path';

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The first Chromium or Chrome on `PATH` (Debian's `/usr/bin/chromium` and its kin), or null. */
export function findChromium(pathVariable: string | undefined): string | null {
  const dirs = (pathVariable ?? '').split(path.delimiter).filter(Boolean);
  for (const name of CANDIDATES) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (existsSync(file)) return file;
    }
  }
  return null;
}
