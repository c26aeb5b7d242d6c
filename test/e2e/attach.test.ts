/**
 * `massgen --attach` through the built CLI against the local fake OpenAI server: the image reaches the
 * model as an image part byte for byte, the terminal names it, the log keeps its path and hash only,
 * and a bad file is one line on stderr before any request.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/media/index.js';
import { tinyPng } from '../../src/testing/media-fixtures.js';
import { REPO_ROOT, makeWorkdir, onlyLogDir, runCli, useFakeServer, writeConfig } from './cli-harness.js';

const fake = useFakeServer();
const env = { OPENAI_API_KEY: 'sk-test-attach-0000' };
const CLI = path.join(REPO_ROOT, 'bin', 'massgen.js');

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
  });

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
  });

  // Root reads every file, so the unreadable case runs the CLI as `nobody` (setpriv) when the tests run
  // as root; as any other user a chmod 000 file is unreadable already.
  const asRoot = process.getuid?.() === 0;
  const nobodyCanRun =
    !asRoot ||
    spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'test', '-r', CLI])
      .status === 0;
  it.skipIf(!nobodyCanRun)(
    `an unreadable file is one line with what to do (exit 1)${nobodyCanRun ? '' : ' (skipped: setpriv cannot run the CLI as nobody here)'}`,
    () => {
      const cwd = makeWorkdir();
      fs.chmodSync(cwd, 0o755);
      oneAgent(cwd);
      fs.writeFileSync(path.join(cwd, 'locked.png'), tinyPng());
      fs.chmodSync(path.join(cwd, 'locked.png'), 0o000);
      const command = [
        process.execPath,
        CLI,
        '--no-logs',
        '--config',
        'config.yaml',
        '--attach',
        'locked.png',
        'q',
      ];
      const as = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
      const [program, ...args] = [...as, ...command];
      const result = spawnSync(program!, args, {
        cwd,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, HOME: cwd, ...env },
        timeout: 60_000,
      });
      expect(result.stderr).toBe(
        'massgen: error: attachment locked.png: cannot be read (permission denied)\n' +
          'hint: give the user running massgen read access to it, or attach a copy\n',
      );
      expect(result.status).toBe(1);
      expect(fake.server.requests).toEqual([]);
    },
  );

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
  });

  it('a URL on this machine is refused before any request; --allow-private-urls fetches it', async () => {
    fake.server.setHandler(() => ({ text: 'A red square.' }));
    const png = tinyPng(3, 3, [255, 0, 0]);
    const hits: string[] = [];
    const files = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end(png);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(files.address() as AddressInfo).port}/photo.png`;
      const cwd = makeWorkdir();
      oneAgent(cwd);
      const refused = await runCli(['--config', 'config.yaml', '--attach', url, 'What is this?'], {
        cwd,
        env,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `massgen: error: attachment ${url}: refused: 127.0.0.1 is a loopback address (this machine), not a public one: pass --allow-private-urls to fetch from this machine or your network, or download it yourself and attach the file by its path\n`,
      );
      expect(hits).toEqual([]);
      expect(fake.server.requests).toEqual([]);

      const allowed = await runCli(
        ['--config', 'config.yaml', '--no-display', '--allow-private-urls', '--attach', url, 'What is this?'],
        { cwd, env },
      );
      expect(allowed.stderr).toBe('');
      expect(allowed.code).toBe(0);
      expect(hits).toEqual(['/photo.png']);
      expect(Buffer.from(fake.server.requests[0]!.view!.media[0]!.data).equals(png)).toBe(true);
    } finally {
      await new Promise((resolve) => files.close(resolve));
    }
  });
});
