#!/usr/bin/env node
// `npm run release:pack [-- --out DIR]`: packs massgen the way it is published, and prints the tarball's
// path. Publish that file (`npm publish massgen-<version>.tgz`); `npm publish` in the repository refuses.
//
// Why a script: npm installs every optional dependency whose os/cpu match the machine, and node-llama-cpp
// lists its CUDA (181 + 357 MB) and Vulkan (81 MB) builds as optional dependencies for Linux and Windows
// x64, so `npm i massgen` fetched ~540 MB of GPU binaries onto every such machine, GPU or not. Nothing in
// a dependency's package.json can drop a transitive optional dependency: `overrides` apply only to the
// root project, and npm skips the os/cpu check for packages listed in an npm-shrinkwrap.json (it then
// installs every platform's binaries). What works is bundling: the tarball carries node-llama-cpp (and
// its own dependencies) without its optional binary packages, and massgen lists the CPU builds as its
// own optional dependencies, so npm fetches the one this machine runs. A GPU build
// is one command away (see gpuBuildInstallCommand in src/backends/local/gpu-builds.ts).
//
// The repository's package.json stays an ordinary one (a clone's `npm ci` installs everything, GPU
// builds included); only the staged copy packed here is changed. Needs a built `dist` (`npm run build`)
// and the npm registry or its cache (the staged install uses --prefer-offline).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** node-llama-cpp's optional packages that hold GPU builds (the CPU ones stay). */
const GPU_PACKAGE = /^@node-llama-cpp\/.+-(cuda|cuda-ext|vulkan)$/;

const args = process.argv.slice(2);
if (args.includes('--refuse-publish')) {
  console.error(
    'massgen: publish the tarball `npm run release:pack` makes (npm publish massgen-<version>.tgz): ' +
      'a plain `npm publish` would make every install fetch ~540 MB of GPU builds.',
  );
  process.exit(1);
}
const outIndex = args.indexOf('--out');
const out = path.resolve(outIndex >= 0 && args[outIndex + 1] ? args[outIndex + 1] : ROOT);
const keep = args.includes('--keep');

/** Runs a command (npm through the shell on Windows); returns its stdout. */
function run(command, commandArgs, cwd) {
  const result = spawnSync(command, commandArgs, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    shell: process.platform === 'win32',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${commandArgs.join(' ')} failed in ${cwd} (exit ${result.status})`);
  }
  return result.stdout;
}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

if (!existsSync(path.join(ROOT, 'dist', 'index.js'))) {
  console.error('massgen: dist/ is missing; run `npm run build` first');
  process.exit(1);
}

const staging = mkdtempSync(path.join(tmpdir(), 'massgen-pack-'));
try {
  // 1. The files `npm pack` would publish, unpacked into the staging folder.
  const [plain] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', staging], ROOT),
  );
  run('tar', ['-xzf', plain.filename, '-C', staging], staging);
  const pkgDir = path.join(staging, 'package');
  rmSync(path.join(staging, plain.filename));

  // 2. The published manifest: node-llama-cpp bundled, its CPU builds as massgen's optional dependencies.
  const llama = readJson(path.join(ROOT, 'node_modules', 'node-llama-cpp', 'package.json'));
  const cpuBuilds = Object.fromEntries(
    Object.entries(llama.optionalDependencies ?? {}).filter(([name]) => !GPU_PACKAGE.test(name)),
  );
  const manifest = readJson(path.join(pkgDir, 'package.json'));
  manifest.bundleDependencies = ['node-llama-cpp'];
  manifest.optionalDependencies = { ...manifest.optionalDependencies, ...cpuBuilds };
  // Build and publish steps mean nothing in an installed copy.
  for (const script of ['prepare', 'prepack', 'postpack', 'prepublishOnly'])
    delete manifest.scripts?.[script];
  writeJson(path.join(pkgDir, 'package.json'), manifest);

  // 3. node-llama-cpp and its dependencies, at the lockfile's versions, without any optional package.
  cpSync(path.join(ROOT, 'package-lock.json'), path.join(pkgDir, 'package-lock.json'));
  run(
    'npm',
    [
      'install',
      '--omit=dev',
      '--omit=optional',
      '--omit=peer',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    pkgDir,
  );
  // The bundled copy lists no binary package at all: a GPU one would come back with the user's next
  // `npm install` in that project, and a CPU one would count as part of the bundle, so a global install
  // (where it lands in massgen's own node_modules) would leave its folder empty. massgen lists the CPU ones.
  const bundled = path.join(pkgDir, 'node_modules', 'node-llama-cpp', 'package.json');
  const bundledManifest = readJson(bundled);
  delete bundledManifest.optionalDependencies;
  writeJson(bundled, bundledManifest);
  if (existsSync(path.join(pkgDir, 'node_modules', '@node-llama-cpp'))) {
    throw new Error('a llama.cpp binary package ended up in the bundle');
  }

  // 4. The tarball.
  mkdirSync(out, { recursive: true });
  const [packed] = JSON.parse(
    run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], pkgDir),
  );
  const tarball = path.join(out, packed.filename);
  console.error(
    `massgen: packed ${packed.filename}: ${(packed.size / 1e6).toFixed(1)} MB, ` +
      `${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${packed.bundled.length} bundled packages`,
  );
  console.log(tarball);
} finally {
  if (keep) console.error(`massgen: staging folder kept: ${staging}`);
  else rmSync(staging, { recursive: true, force: true });
}
