/**
 * The layer rules of docs/architecture.md as `eslint.config.js` enforces them, asked of ESLint itself:
 * the composition root imports a capability's descriptor and nothing else of its folder (the rest
 * loads when a run uses it), and a capability folder may not reach up into the app.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: root });

/** The import-rule messages ESLint gives `code` as if it were the file `file` (it need not exist). */
async function importProblems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const capabilityInternals = [
  ['memory', '../memory/memory-capability.js', 'memoryCapability'],
  ['skills', '../skills/run-skills.js', 'runSkills'],
  ['bridge', '../bridge/python-tools.js', 'pythonTools'],
  ['tools/browser', '../tools/browser/browser-capability.js', 'prepare'],
  ['tools/computer', '../tools/computer/computer-tool-provider.js', 'provider'],
  ['tools/media-generation', '../tools/media-generation/media-models.js', 'models'],
] as const;

describe('lint zones', () => {
  it.each(capabilityInternals)('src/app may not import the internals of %s', async (dir, from, name) => {
    const problems = await importProblems(
      'src/app/zz-lint-probe.ts',
      `import { ${name} } from '${from}';\nexport const probe = ${name};\n`,
    );
    expect(problems).toEqual([expect.stringContaining(`app imports only ${dir}/capability.js`)]);
  });

  it("src/app may import a capability's descriptor", async () => {
    const problems = await importProblems(
      'src/app/zz-lint-probe.ts',
      "import { memoryCapability } from '../memory/capability.js';\nexport const probe = memoryCapability;\n",
    );
    expect(problems).toEqual([]);
  });

  it('a capability folder may not import the app', async () => {
    const problems = await importProblems(
      'src/memory/zz-lint-probe.ts',
      "import { prepareRun } from '../app/run-massgen.js';\nexport const probe = prepareRun;\n",
    );
    expect(problems).toEqual([expect.stringContaining('memory may import only')]);
  });
});
