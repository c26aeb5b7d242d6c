// Loaded with `node --import` by bench/suite.js: writes the process's peak RSS (KiB) when it exits.
import { writeFileSync } from 'node:fs';

if (process.env.MASSGEN_BENCH_RSS) {
  const file = process.env.MASSGEN_BENCH_RSS;
  process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
}
