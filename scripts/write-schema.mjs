// Build step: writes the config's JSON Schema (generated from the zod schema) into the package, so
// editors can point at node_modules/massgen/dist/massgen.schema.json.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../dist/config/json-schema.js';

const file = new URL('../dist/massgen.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);

// And the help text, so `massgen --help` can print it without loading the CLI (bin/massgen.js): exactly
// what commander prints for --help, captured.
const { buildProgram } = await import('../dist/cli/program.js');
let help = '';
const program = buildProgram()
  .configureOutput({ writeOut: (chunk) => (help += chunk), writeErr: () => undefined })
  .exitOverride();
try {
  program.parse(['node', 'massgen', '--help']);
} catch {
  // commander ends --help by "exiting", which exitOverride turns into a throw.
}
writeFileSync(new URL('../dist/cli/help.txt', import.meta.url), help);
