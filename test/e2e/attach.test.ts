/**
 * `massgen --attach` through the built CLI against the local fake OpenAI server: the image reaches the
 * model as an image part byte for byte, the terminal names it, the log keeps its path and hash only,
 * and a bad file is one line on stderr before any request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/media/index.js';
import { tinyPng } from '../../src/testing/media-fixtures.js';
import { makeWorkdir, onlyLogDir, runCli, useFakeServer, writeConfig } from './cli-harness.js';

const fake = useFakeServer();
const env = { OPENAI_API_KEY: 'sk-test-attach-0000' };

function oneAgent(cwd: string): void {
  writeConfig(cwd, {
    agent: {
      id: 'seer',
      backend: {
        type: 'chatcompletion',
        provider: 'openai',
        model: 'gpt-4o',
        base_url: `${fake.server.url}`,
      },
    },
  });
}

describe('massgen --attach', () => {
  it('sends the image to the model as an image part, names it on the terminal and logs only its reference', async () => {
    fake.server.setHandler(() => ({ text: 'A tiny blue square.' }));
    const cwd = makeWorkdir();
    oneAgent(cwd);
    const png = tinyPng(4, 4, [0, 0, 255]);
    fs.writeFileSync(path.join(cwd, 'photo.png'), png);
    fs.writeFileSync(path.join(cwd, 'notes.md'), 'Taken at noon.\n');

    const result = await runCli(
      [
        '--config',
        'config.yaml',
        '--no-display',
        '--attach',
        'photo.png',
        '--attach',
        'notes.md',
        'What is in this?',
      ],
      { cwd, env },
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const request = fake.server.requests[0]!;
    expect(request.view?.media.map((m) => [m.part, m.mediaType, m.role])).toEqual([
      ['image_url', 'image/png', 'user'],
    ]);
    expect(Buffer.from(request.view!.media[0]!.data).equals(png)).toBe(true);
    // The text attachment is inlined into the question, as before.
    expect(request.view?.text).toContain('Attached file notes.md:');
    expect(request.view?.text).toContain('Taken at noon.');
    expect(result.stdout).toContain(`Attached: 🖼 photo.png (image, ${png.length} B)`);
    expect(result.stdout).toContain('A tiny blue square.');

    const log = fs.readFileSync(path.join(onlyLogDir(cwd), 'events.jsonl'), 'utf8');
    expect(log).toContain(sha256Hex(png));
    expect(log).not.toContain(png.toString('base64').slice(8, 40));
  }, 120_000);

  it('--automation prints one ATTACHMENT line per file', async () => {
    fake.server.setHandler(() => ({ text: 'Blue.' }));
    const cwd = makeWorkdir();
    oneAgent(cwd);
    const png = tinyPng(2, 2, [0, 0, 200]);
    fs.writeFileSync(path.join(cwd, 'photo.png'), png);
    const result = await runCli(
      ['--config', 'config.yaml', '--automation', '--attach', 'photo.png', 'Colour?'],
      {
        cwd,
        env,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^ATTACHMENT: photo\\.png \\(image, image/png, ${png.length} B, sha256 ${sha256Hex(png).slice(0, 12)}\\) .*photo\\.png$`,
        'm',
      ),
    );
  }, 120_000);

  it('a bad file is one line naming it, before any request (exit 1)', async () => {
    const cwd = makeWorkdir();
    oneAgent(cwd);
    fs.writeFileSync(path.join(cwd, 'photo.png'), 'not really a picture\n');
    const result = await runCli(['--config', 'config.yaml', '--attach', 'photo.png', 'What is this?'], {
      cwd,
      env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'massgen: error: attachment photo.png: its bytes are not an image (looks like text/plain): check it is the file you meant, or give a text file a text name (.txt, .md) to attach it as text\n',
    );
    expect(fake.server.requests).toEqual([]);
  }, 120_000);
});
