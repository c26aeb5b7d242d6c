// Build step: writes the config's JSON Schema (generated from the zod schema) into the package, so
// editors can point at node_modules/massgen/dist/massgen.schema.json.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../dist/config/json-schema.js';

const file = new URL('../dist/massgen.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);

// And the help text, so `massgen --help` can print it without loading the CLI (bin/massgen.js).
const { buildProgram } = await import('../dist/cli/program.js');
writeFileSync(
  new URL('../dist/cli/help.txt', import.meta.url),
  buildProgram().helpInformation() + helpAfter(),
);

/** What commander prints after the options (the examples), as `--help` shows it. */
function helpAfter() {
  let text = '';
  const program = buildProgram();
  program.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: () => undefined });
  program.exitOverride();
  try {
    program.parse(['node', 'massgen', '--help']);
  } catch {
    // commander ends --help by "exiting", which exitOverride turns into a throw.
  }
  return text.slice(program.helpInformation().length);
}
