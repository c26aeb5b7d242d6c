import type { BackendListing } from '../app/index.js';
import type { Write } from '../app/plain-display.js';

const FEATURES: [keyof BackendListing['capabilities'], string][] = [
  ['tools', 'tools'],
  ['webSearch', 'web search'],
  ['codeExecution', 'code execution'],
  ['reasoning', 'reasoning'],
  ['imagesIn', 'images in'],
];

/** Prints `--list-backends`: one block per backend type (JSON with `--json`). Never prints a key. */
export function printBackendList(
  write: Write,
  backends: readonly BackendListing[],
  json: boolean,
  sandbox?: string,
): void {
  if (json) {
    write(`${JSON.stringify(backends, null, 2)}\n`);
    return;
  }
  for (const b of backends) {
    const key =
      b.keyEnvs.length === 0
        ? 'no key needed'
        : `${b.keyEnvs.join(' or ')} ${b.keySet ? '✔ set' : '✖ not set'}`;
    const features = FEATURES.filter(([k]) => b.capabilities[k]).map(([, label]) => label);
    write(`${b.type.padEnd(15)} ${b.description}\n`);
    write(
      `${''.padEnd(15)} key: ${key}${b.defaultBaseUrl ? ` · default base_url: ${b.defaultBaseUrl}` : ''}\n`,
    );
    write(`${''.padEnd(15)} supports: ${features.join(', ') || 'text only'}\n`);
    if (b.presets.length > 0) {
      write(`${''.padEnd(15)} providers (provider: NAME, or picked by base_url host):\n`);
      for (const p of b.presets) {
        const presetKey = p.keyEnv === null ? 'no key' : `${p.keyEnv} ${p.keySet ? '✔' : '✖'}`;
        write(`${''.padEnd(17)}${p.name.padEnd(12)} ${p.baseUrl}  (${presetKey})\n`);
      }
    }
    write('\n');
  }
  if (sandbox !== undefined) write(`sandbox for execute_command: ${sandbox}\n`);
}
