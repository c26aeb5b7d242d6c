import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileBrowser } from '../../app/browse-files.js';
import { startWebServer, type WebServer } from './web-server.js';

/**
 * The `raw` file route the page shows files from (images, PDF, sandboxed HTML): each file under its own
 * type, never sniffed, HTML and SVG under a CSP sandbox, framable only by the page, confined to the run's
 * folders like every other file route.
 */
const RUN = 'log_20261125_101500_123456';
let cwd: string;
let server: WebServer;
let base: string;
const get = (route: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${route}`, { headers: { authorization: `Bearer ${server.authToken}`, ...headers } });
const raw = (file: string) => get(`/api/runs/${RUN}/raw?root=log&path=${encodeURIComponent(file)}`);

beforeAll(async () => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'massgen-raw-'));
  const dir = path.join(cwd, '.massgen', 'massgen_logs', RUN);
  fs.mkdirSync(path.join(dir, 'final'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ question: 'files?', final: {} }));
  fs.writeFileSync(path.join(dir, 'final', 'page.html'), '<script>alert(1)</script><p>hi</p>');
  fs.writeFileSync(path.join(dir, 'final', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(dir, 'final', 'dot.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  fs.writeFileSync(path.join(dir, 'final', 'doc.pdf'), '%PDF-1.4\n%%EOF\n');
  fs.writeFileSync(path.join(dir, 'final', 'notes'), '<html><script>alert(1)</script>');
  fs.writeFileSync(path.join(cwd, 'secret.txt'), 'not for the browser');
  fs.writeFileSync(path.join(dir, 'final', '報告.txt'), 'the report\n');
  fs.writeFileSync(path.join(dir, 'final', 'a "quoted"; name.txt'), 'quoted\n');
  server = await startWebServer({ cwd, env: {}, port: 0, staticDir: cwd });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  fs.rmSync(cwd, { recursive: true, force: true });
});

describe('GET /api/runs/:id/raw', () => {
  it('serves HTML and SVG with their type, nosniff and a CSP sandbox, framable by the page only', async () => {
    for (const [file, type] of [
      ['final/page.html', 'text/html; charset=utf-8'],
      ['final/logo.svg', 'image/svg+xml'],
    ] as const) {
      const response = await raw(file);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/^sandbox;/);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'self'");
      expect(csp).not.toMatch(/script-src/);
      expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="/);
    }
  });

  it('serves images and PDF under their types; anything else as plain text, never sniffed', async () => {
    expect((await raw('final/dot.png')).headers.get('content-type')).toBe('image/png');
    const pdf = await raw('final/doc.pdf');
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    const other = await raw('final/notes');
    expect(other.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(other.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('leaves the page and the other routes under the strict headers', async () => {
    const file = await get(`/api/runs/${RUN}/file?root=log&path=status.json`);
    expect(file.headers.get('x-frame-options')).toBe('DENY');
    expect(file.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('refuses paths out of the run’s folders, a page elsewhere, and unknown roots', async () => {
    expect((await raw('../../../secret.txt')).status).toBe(403);
    expect((await get(`/api/runs/${RUN}/raw?root=nope&path=x`)).status).toBe(404);
    const crossSite = await get(`/api/runs/${RUN}/raw?root=log&path=final/page.html`, {
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.status).toBe(403);
  });

  it('reads a file only up to the limit', async () => {
    const browser = createFileBrowser(path.join(cwd, '.massgen', 'massgen_logs', RUN));
    expect(await browser.readAtMost('final/doc.pdf', 4)).toBeNull();
    expect(String(await browser.readAtMost('final/doc.pdf', 1000))).toBe('%PDF-1.4\n%%EOF\n');
  });

  it('serves and downloads a file of any name: RFC 5987 filename* beside an ASCII filename', async () => {
    const download = (file: string) =>
      get(`/api/runs/${RUN}/download?root=log&path=${encodeURIComponent(file)}`);
    const report = await download('final/報告.txt');
    expect(report.status).toBe(200);
    expect(report.headers.get('content-disposition')).toBe(
      `attachment; filename="__.txt"; filename*=UTF-8''%E5%A0%B1%E5%91%8A.txt`,
    );
    expect(await report.text()).toBe('the report\n');
    const shown = await raw('final/報告.txt');
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-disposition')).toBe(
      `inline; filename="__.txt"; filename*=UTF-8''%E5%A0%B1%E5%91%8A.txt`,
    );
    // Quotes and semicolons cannot break out of the header's parameters.
    const quoted = await download('final/a "quoted"; name.txt');
    expect(quoted.headers.get('content-disposition')).toBe(
      `attachment; filename="a _quoted_; name.txt"; filename*=UTF-8''a%20%22quoted%22%3B%20name.txt`,
    );
    // Plain ASCII names keep the plain form.
    expect((await download('final/notes')).headers.get('content-disposition')).toBe(
      'attachment; filename="notes"',
    );
  });
});
