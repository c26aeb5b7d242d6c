// Build step: writes the config's JSON Schema (generated from the zod schema) into the package, so
// editors can point at node_modules/massgen/dist/massgen.schema.json.
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../dist/config/json-schema.js';

const file = new URL('../dist/massgen.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
