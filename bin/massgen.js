#!/usr/bin/env node
// `--version` and `--help` answer from two small files before anything else loads: a fast start for
// the commands people (and scripts) run most often. Everything else goes through the CLI.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const only = args.length === 1 ? args[0] : undefined;
const read = (relative) => {
  try {
    return readFileSync(new URL(relative, import.meta.url), 'utf8');
  } catch {
    return null; // Not built yet (a source checkout): the CLI answers.
  }
};
const manifest = only === '--version' || only === '-V' ? read('../package.json') : null;
const quick = manifest
  ? `${JSON.parse(manifest).version}\n`
  : only === '--help' || only === '-h'
    ? read('../dist/cli/help.txt')
    : null;
if (quick) {
  process.stdout.write(quick);
} else {
  // The bundled CLI (scripts/bundle-cli.mjs): the same modules as dist/cli, in a few files.
  // V8 settings for a lean run (src/cli/v8-flags.ts) must be in place before the CLI's modules load.
  const { applyCliV8Flags } = await import('../dist/cli-bundle/v8-flags.js');
  applyCliV8Flags();
  const { main } = await import('../dist/cli-bundle/main.js');
  await main();
}
