import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../../..');
const fixtures = join(root, 'test/fixtures/custom-tools');

/**
 * Vitest serves JavaScript modules through vite, so the loader's plain `import()` is checked here in a
 * real Node process (tsx only registered to read the loader's own TypeScript sources).
 */
describe('loadCustomTools outside vitest', () => {
  let scratch = '';
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'massgen-native-tools-'));
    await writeFile(join(scratch, 'broken.mjs'), 'export const a = ;\n');
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('loads .ts, .mjs and .cjs modules and reports Node’s syntax errors', async () => {
    const loader = pathToFileURL(join(root, 'src/tools/custom/index.ts')).href;
    const script = `
      const { loadCustomTools, customToolProvider } = await import(${JSON.stringify(loader)});
      const fixtures = ${JSON.stringify(fixtures)};
      const params = { type: 'object' };
      const tools = await loadCustomTools([
        { name: 'weather', path: fixtures + '/weather.ts', function: 'weather' },
        { name: 'module_url', path: fixtures + '/weather.ts', function: 'moduleUrl' },
        { name: 'echo', path: fixtures + '/plain-tools.mjs', function: 'echo', parameters: params },
        { name: 'shout', path: fixtures + '/commonjs-tools.cjs', function: 'shout', parameters: params },
      ], { where: 'custom_tools' });
      const provider = customToolProvider(tools);
      const context = { agentId: 'a', phase: 'coordination', signal: new AbortController().signal };
      const out = {
        weather: await provider.call('weather', { city: 'Oslo' }, context),
        moduleUrl: await provider.call('module_url', {}, context),
        echo: await provider.call('echo', { text: 'hi' }, context),
        shout: await provider.call('shout', { text: 'hi' }, context),
      };
      const broken = { name: 'b', path: ${JSON.stringify(join(scratch, 'broken.mjs'))}, function: 'a', parameters: params };
      out.broken = await loadCustomTools([broken], { where: 'custom_tools' }).catch((e) => e.message);
      process.stdout.write(JSON.stringify(out));
    `;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
    });
    const out = JSON.parse(stdout) as Record<string, { content: string } | string>;
    expect(out.weather).toEqual({
      content: JSON.stringify({ city: 'Oslo', temperature: 21, unit: 'c', agent: 'a' }, null, 2),
    });
    expect(out.moduleUrl).toMatchObject({ content: expect.stringContaining('tsx-namespace=') });
    expect(out.echo).toEqual({ content: 'hi' });
    expect(out.shout).toEqual({ content: 'HI' });
    expect(out.broken).toMatch(/cannot load .*broken\.mjs: SyntaxError: Unexpected token ';'$/);
  });
});
