import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { validateConfig } from './validate.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'massgen-validate-attach-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--validate and attachments', () => {
  it('a missing attachment file is a warning naming it; present files and URLs pass', async () => {
    writeFileSync(path.join(dir, 'here.png'), 'x');
    writeFileSync(
      path.join(dir, 'team.yaml'),
      stringify({
        attachments: ['here.png', 'gone.png', 'https://example.com/a.png'],
        agent: {
          id: 'a',
          backend: { type: 'chatcompletion', model: 'm', base_url: 'http://127.0.0.1:9/v1' },
        },
      }),
    );
    const report = await validateConfig(path.join(dir, 'team.yaml'), { cwd: dir, env: {} });
    expect(report.valid).toBe(true);
    expect(report.warnings.filter((w) => w.path.startsWith('attachments'))).toEqual([
      {
        path: 'attachments[1]',
        line: 3,
        column: 5,
        message: `attachments[1]: file not found: ${path.join(dir, 'gone.png')} (a run stops there)`,
      },
    ]);
  });
});
