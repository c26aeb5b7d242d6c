import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Hono } from 'hono';
import { safeDecode } from './guard.js';
import { packagePath } from '../../util/package-root.js';

/** Where the built browser app is in the installed package (`dist/web`). */
export const STATIC_DIR = packagePath('dist', 'web');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * The page: the built app's static assets from `staticDir`, and index.html for every other path
 * (client-side routes such as /runs/ID). A path that leaves the folder gets index.html too.
 */
export function registerStaticRoutes(app: Hono, staticDir: string): void {
  app.get('*', async (c) => {
    const decoded = safeDecode(new URL(c.req.url).pathname);
    if (decoded === null || decoded.includes('\0'))
      return c.text(
        `the path "${c.req.path.slice(0, 100)}" is not valid percent-encoding: check the address`,
        400,
      );
    const requested = path.normalize(decoded).replace(/^([/\\])+/, '');
    const file = path.join(staticDir, requested);
    const inside = file.startsWith(staticDir + path.sep);
    const target = inside && requested !== '' && isFile(file) ? file : path.join(staticDir, 'index.html');
    try {
      const data = await readFile(target);
      return c.body(new Uint8Array(data), 200, {
        'Content-Type': TYPES[path.extname(target)] ?? 'application/octet-stream',
      });
    } catch {
      return c.text('The web app is not built: run `npm run build` in the massgen package.', 500);
    }
  });
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
