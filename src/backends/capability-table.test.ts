import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderCapabilityTable } from './capability-table.js';
import { loadAllBackendFactories } from './registry.js';

const backendFactories = await loadAllBackendFactories();

describe('capability table', () => {
  it('docs/backends.md shows exactly the capabilities the code declares', () => {
    const docs = readFileSync(new URL('../../docs/backends.md', import.meta.url), 'utf8');
    expect(docs).toContain(renderCapabilityTable(backendFactories));
  });

  it('has a row per registered backend', () => {
    const rows = renderCapabilityTable(backendFactories).split('\n').slice(2);
    expect(rows.map((r) => /`([^`]+)`/.exec(r)?.[1])).toEqual(backendFactories.map((f) => f.type));
  });
});
