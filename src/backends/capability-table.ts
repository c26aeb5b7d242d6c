import type { BackendFactory } from '../types/backend.js';

const COLUMNS: [keyof BackendFactory['capabilities'], string][] = [
  ['streaming', 'streaming'],
  ['tools', 'tools'],
  ['webSearch', 'web search'],
  ['codeExecution', 'code execution'],
  ['reasoning', 'reasoning'],
  ['imagesIn', 'images in'],
];

/**
 * The capability table as Markdown, rendered from the factories themselves; docs/backends.md embeds
 * exactly this text and a test keeps the two identical.
 */
export function renderCapabilityTable(factories: readonly BackendFactory[]): string {
  const header = `| \`type\` | key variable | ${COLUMNS.map(([, label]) => label).join(' | ')} |`;
  const rule = `|---|---|${COLUMNS.map(() => ':-:').join('|')}|`;
  const rows = factories.map((f) => {
    const keys = f.apiKeyEnvs({});
    const key = keys.length === 0 ? 'none' : keys.map((k) => `\`${k}\``).join(' or ');
    return `| \`${f.type}\` | ${key} | ${COLUMNS.map(([k]) => (f.capabilities[k] ? '✓' : '—')).join(' | ')} |`;
  });
  return [header, rule, ...rows].join('\n');
}
