/**
 * `npm run demo:media` (scripts/demo-media.mjs): the built CLI with `--attach` against the scripted
 * server. Ada's scripted reply is decoded from the image bytes her request carried, so the output
 * proves the picture reached her model; Ben's model takes no images and quotes his note instead;
 * generate_image really saves a PNG in Ada's workspace; the demo ends naming that file and the log
 * folder. Without `npm run build` it says so in one line.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tinyPng } from '../../src/testing/media-fixtures.js';
import { REPO_ROOT, makeWorkdir, removeTempDirs } from './cli-harness.js';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'demo-media.mjs');
const built = fs.existsSync(path.join(REPO_ROOT, 'dist', 'testing', 'index.js'));

afterAll(() => removeTempDirs());

/** Runs the demo script with a clean environment; its temp folders go under a test workdir. */
function runDemo(script: string) {
  const tmp = makeWorkdir();
  return spawnSync(process.execPath, [script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, TMPDIR: tmp },
  });
}

describe('npm run demo:media', () => {
  it.skipIf(!built)(
    `attaches a picture Ada sees and Ben reads about, generates an image, and names it and the logs${built ? '' : ' (skipped: run `npm run build` first)'}`,
    () => {
      const run = runDemo(SCRIPT);
      expect(run.status).toBe(0);
      // The only line on stderr: the CLI's warning that Ben's model takes no images.
      expect(run.stderr.trim()).toBe(
        'massgen: warning: agent ben (chatcompletion/scripted-text) cannot take images: it is not shown photo.png and reads a note naming it instead',
      );
      const out = run.stdout;
      const photo = tinyPng(48, 32, [255, 140, 0]);
      expect(out).toContain(`Attached: 🖼 photo.png (image, ${photo.length} B)`);
      // Decoded by the scripted model from the bytes that arrived.
      expect(out).toContain('[ada] Ada: the picture is 48×32 px, all orange (rgb 255, 140, 0).');
      expect(out).toContain('[ben] Ben: 0 images reached me.');
      expect(out).toContain('my prompt only says photo.png (image, image/png) was left out');
      expect(out).toContain('⚙ generate_image');
      expect(out).toContain('↳ generate_image: Generated an image with gpt-image-1 (openai)');
      expect(out).toContain('Winner: ada');
      expect(out).toMatch(
        /=== Final answer \(ada\) ===\nThe picture is 48×32 px, all orange \(rgb 255, 140, 0\)\. .*generated\/image-001\.png, 8×8 px, all blue/,
      );

      const image = /Ada's generated image: (\S+)/.exec(out)?.[1];
      expect(image).toMatch(/[/\\]\.massgen[/\\]workspaces[/\\]ada[/\\]generated[/\\]image-001\.png$/);
      expect(fs.readFileSync(image!).subarray(1, 4).toString('latin1')).toBe('PNG');
      const logs = /Run log folder: +(\S+)/.exec(out)?.[1];
      const events = fs.readFileSync(path.join(logs!, 'events.jsonl'), 'utf8');
      // The log names the attachment by its hash, never its bytes.
      expect(events).toContain(createHash('sha256').update(photo).digest('hex'));
      expect(events).not.toContain(photo.toString('base64'));
    },
    150_000,
  );

  it('without a build: one line saying to run `npm run build`', () => {
    const copy = path.join(makeWorkdir(), 'scripts', 'demo-media.mjs');
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(SCRIPT, copy);
    const run = runDemo(copy);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'massgen demo:media runs the built CLI: run `npm run build` first (dist/ is missing).\n',
    );
  });
});
