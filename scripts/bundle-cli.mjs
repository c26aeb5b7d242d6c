// Build step: bundles the CLI (dist/cli/main.js and the V8 flags it sets first) into dist/cli-bundle/,
// one chunk per lazily imported part, so a run's start-up resolves and reads tens of files instead of
// ~600 (Node's ES module loader was ~half of start-up's CPU; see the README's bench notes). What the
// bundle inlines: massgen's own modules and the pure-JS packages every run loads, which only our code
// imports (zod alone is ~250 modules). Everything else stays a package import, loaded from
// node_modules as before: native addons, the browser, MCP, Ink/React (and string-width, which Ink
// imports too), the framework and harness packages, and the library entry points (`import 'massgen'`
// still loads dist/ as tsc wrote it).
//
// zod is inlined although a user's custom tool module brings its own `zod`: massgen reads a tool's
// schema by its `_zod` shape (src/tools/define-tool.ts), never by `instanceof`, and zod keeps its
// registry of descriptions on globalThis, shared by every copy.
//
// It also writes dist/cli-bundle/modules.json (each output file → the modules it holds), which the
// lazy-imports test reads to name the modules a run loaded.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli-bundle');

/**
 * Packages bundled into the CLI; a package import not matched here stays an import. Each is pure JS,
 * read by every run, and imported only by massgen's own code (commander and ipaddr.js are CommonJS,
 * which Node would otherwise scan for their exports at each start).
 */
const INLINE = [
  /^zod(\/|$)/,
  /^@ai-sdk\//,
  /^@standard-schema\//,
  /^eventsource-parser(\/|$)/,
  /^yaml(\/|$)/,
  /^commander(\/|$)/,
  /^p-retry(\/|$)/,
  /^is-network-error(\/|$)/,
  /^ipaddr\.js(\/|$)/,
];

const packagesStayExternal = {
  name: 'packages-stay-external',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      return INLINE.some((pattern) => pattern.test(args.path)) ? undefined : { external: true };
    });
  },
};

/**
 * zod's `z` namespace re-exports all of its ~60 message locales (half of zod's code); massgen reads
 * none of them — zod's own English default is imported by zod directly, not through this index — so
 * the bundle's copy of the index holds only English.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';\n",
      resolveDir: path.join(root, 'node_modules', 'zod', 'v4', 'locales'),
    }));
  },
};

// Chunk names carry a content hash: without a clean start every rebuild would leave the last build's
// chunks beside the new ones (and in a package packed from this tree).
rmSync(outdir, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'dist/cli/main.js', 'v8-flags': 'dist/cli/v8-flags.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [packagesStayExternal, zodEnglishOnly],
  // Less for V8 to read and pre-parse at every start; names stay, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  // An inlined CommonJS module may call `require` (of a Node builtin); ESM output has none of its own.
  banner: {
    js: "import { createRequire as __massgenCreateRequire } from 'node:module'; const require = __massgenCreateRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});

const modules = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (file.endsWith('.map')) continue;
  modules[path.basename(file)] = Object.keys(output.inputs).sort();
}
writeFileSync(path.join(outdir, 'modules.json'), `${JSON.stringify(modules)}\n`);
