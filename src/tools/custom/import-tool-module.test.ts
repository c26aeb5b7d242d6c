import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as ImportToolModule from './import-tool-module.js';

const weather = resolve(import.meta.dirname, '../../../test/fixtures/custom-tools/weather.ts');
const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript);

/** importToolModule as it runs when the optional tsx package is not installed. */
async function withoutTsx(): Promise<typeof ImportToolModule> {
  vi.resetModules();
  vi.doMock('tsx/esm/api', () => {
    throw Object.assign(new Error("Cannot find package 'tsx' imported from massgen"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  });
  return import('./import-tool-module.js');
}

afterEach(() => {
  vi.doUnmock('tsx/esm/api');
  vi.resetModules();
});

describe('importToolModule without tsx (an optional peer dependency)', () => {
  it.skipIf(stripsTypes)(
    `says how to add tsx when this Node cannot strip types itself${stripsTypes ? ' (skipped: this Node strips types)' : ''}`,
    async () => {
      const { importToolModule } = await withoutTsx();
      const error = await importToolModule(weather, 'tools[0].path').catch((e: unknown) => e);
      // A ConfigError of the freshly loaded module graph (vi.resetModules), so matched by name.
      expect(error).toMatchObject({ name: 'ConfigError' });
      expect((error as Error).message).toBe(
        `tools[0].path: loading the TypeScript custom tool module ${weather} needs tsx, which is not installed`,
      );
      expect((error as { hint?: string }).hint).toContain('npm install -g tsx');
    },
  );

  it.skipIf(!stripsTypes)(
    `imports the module with Node's own type stripping${stripsTypes ? '' : ' (skipped: Node 22.18+ strips types; this one does not)'}`,
    async () => {
      const { importToolModule } = await withoutTsx();
      const module = await importToolModule(weather, 'tools[0].path');
      expect(typeof module['weather']).toBe('function');
    },
  );
});
