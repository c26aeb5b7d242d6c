// `npm run bench:install`: what `npm i massgen` costs. Packs massgen as it is published
// (scripts/pack.mjs: node-llama-cpp bundled without its CUDA and Vulkan builds), installs the tarball with
// production dependencies into an empty folder, and measures the tarball, the installed node_modules and
// the install's wall time; then runs the installed CLI on the local test model
// (../shared/models/stories260K.gguf, or MASSGEN_BENCH_MODEL) to show the zero-key local path works on the
// CPU build alone. BENCH_INSTALL_BASELINE=1 also installs a plain `npm pack` tarball (node-llama-cpp as an
// ordinary dependency, every GPU build included) for comparison. Needs a built dist and the npm registry
// or its cache (--prefer-offline); takes about a minute, so BENCH_QUICK=1 skips it.
// Results: bench/results/install-size.json and .md; the suite's table shows them.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(root, '..');
const MB = 1e6;

if (process.env.BENCH_QUICK === '1') {
  console.log(
    'install size: skipped in quick mode (it packs massgen and installs it into an empty folder: ' +
      'about a minute, and the npm registry or its cache); run `npm run bench:install`',
  );
  process.exit(0);
}

/** Runs a command (npm through the shell on Windows); returns stdout, throws on failure. */
function run(command, args, cwd, env = process.env) {
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}`);
  }
  return result.stdout;
}

/** Bytes of all files under `dir` (their sizes, not disk blocks; links not followed). */
function sizeOf(dir) {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(full);
    else if (entry.isFile()) total += lstatSync(full).size;
  }
  return total;
}

/** Every installed copy of a package named `name` (hoisted or nested), e.g. `node-llama-cpp`. */
function copiesOf(modules, name, found = []) {
  if (!existsSync(modules)) return found;
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '.bin') continue;
    const full = path.join(modules, entry.name);
    if (entry.name.startsWith('@')) {
      for (const scoped of readdirSync(full, { withFileTypes: true })) {
        if (!scoped.isDirectory()) continue;
        if (`${entry.name}/${scoped.name}`.startsWith(name)) found.push(path.join(full, scoped.name));
        copiesOf(path.join(full, scoped.name, 'node_modules'), name, found);
      }
    } else {
      if (entry.name === name) found.push(full);
      copiesOf(path.join(full, 'node_modules'), name, found);
    }
  }
  return found;
}

/** Installs `tarball` with production dependencies into an empty folder; returns sizes and time. */
function install(tarball, label) {
  const dir = mkdtempSync(path.join(tmpdir(), 'massgen-install-'));
  writeFileSync(path.join(dir, 'package.json'), '{ "name": "massgen-install-size", "private": true }\n');
  const started = performance.now();
  run(
    'npm',
    ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball],
    dir,
  );
  const seconds = (performance.now() - started) / 1000;
  const modules = path.join(dir, 'node_modules');
  const sum = (paths) => paths.reduce((total, p) => total + sizeOf(p), 0);
  const result = {
    label,
    installSeconds: +seconds.toFixed(1),
    nodeModulesMB: +(sizeOf(modules) / MB).toFixed(1),
    llamaBinariesMB: +(sum(copiesOf(modules, '@node-llama-cpp/')) / MB).toFixed(1),
    llamaBinaryPackages: copiesOf(modules, '@node-llama-cpp/').map((p) => path.basename(p)),
    nodeLlamaCppMB: +(sum(copiesOf(modules, 'node-llama-cpp')) / MB).toFixed(1),
    tsxInstalled: copiesOf(modules, 'tsx').length > 0,
    esbuildMB: +(sum([...copiesOf(modules, 'esbuild'), ...copiesOf(modules, '@esbuild/')]) / MB).toFixed(1),
  };
  console.log(label, result);
  return { dir, result };
}

if (!existsSync(path.join(repo, 'dist', 'index.js'))) {
  console.log('install size: skipped, dist/ is missing (run `npm run build`)');
  process.exit(0);
}

const out = mkdtempSync(path.join(tmpdir(), 'massgen-pack-out-'));
const cleanup = [out];
try {
  const tarball = run(process.execPath, [path.join(repo, 'scripts', 'pack.mjs'), '--out', out], repo)
    .trim()
    .split('\n')
    .at(-1);
  const tarballMB = +(lstatSync(tarball).size / MB).toFixed(1);
  console.log(`packed ${path.basename(tarball)}: ${tarballMB} MB`);
  const lean = install(tarball, 'npm i massgen (published layout)');
  cleanup.push(lean.dir);

  // The zero-key local path on the CPU build alone.
  const model =
    process.env.MASSGEN_BENCH_MODEL ?? path.resolve(repo, '..', 'shared', 'models', 'stories260K.gguf');
  let localRun = 'skipped: no model at ' + model;
  if (existsSync(model)) {
    const cli = path.join(lean.dir, 'node_modules', 'massgen', 'bin', 'massgen.js');
    const result = spawnSync(
      process.execPath,
      [cli, '--local-model', model, '--automation', 'Once upon a time'],
      {
        cwd: lean.dir,
        env: { PATH: process.env.PATH, HOME: lean.dir, MASSGEN_MODEL_DIR: path.join(lean.dir, 'models') },
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    localRun =
      result.status === 0
        ? 'ok'
        : `failed (exit ${result.status}): ${result.stderr.trim().split('\n').at(-1)}`;
  }
  console.log(`local model with the installed package: ${localRun}`);

  let baseline;
  if (process.env.BENCH_INSTALL_BASELINE === '1') {
    const [plain] = JSON.parse(
      run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], repo),
    );
    baseline = install(path.join(out, plain.filename), 'plain npm pack (every GPU build)');
    cleanup.push(baseline.dir);
  }

  const figures = [
    {
      name: 'npm i massgen: installed size (production dependencies)',
      value: lean.result.nodeModulesMB,
      unit: 'MB',
      target: 250,
    },
    { name: 'npm i massgen: packed tarball', value: tarballMB, unit: 'MB', target: 50 },
  ];
  const report = {
    date: new Date().toISOString(),
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    tarballMB,
    install: lean.result,
    localRun,
    ...(baseline ? { baseline: baseline.result } : {}),
    figures,
  };
  mkdirSync(path.join(root, 'results'), { recursive: true });
  writeFileSync(path.join(root, 'results', 'install-size.json'), `${JSON.stringify(report, null, 2)}\n`);
  const rows = [lean.result, ...(baseline ? [baseline.result] : [])].map(
    (r) =>
      `| ${r.label} | ${r.nodeModulesMB} MB | ${r.llamaBinariesMB} MB (${r.llamaBinaryPackages.join(', ')}) | ${r.tsxInstalled ? 'yes' : 'no'} | ${r.installSeconds} s |`,
  );
  writeFileSync(
    path.join(root, 'results', 'install-size.md'),
    [
      `# npm i massgen, ${report.date.slice(0, 10)} (${report.platform}, Node ${report.node})`,
      '',
      `Packed tarball: ${tarballMB} MB. Local model with the installed package: ${localRun}.`,
      '',
      '| install | node_modules | llama.cpp binaries | tsx | time |',
      '| --- | --: | --- | :-: | --: |',
      ...rows,
      '',
    ].join('\n'),
  );
  for (const f of figures) {
    console.log(
      `${f.value <= f.target ? 'pass' : 'FAIL'}  ${f.name}: ${f.value} ${f.unit} (target ≤ ${f.target})`,
    );
  }
  console.log('\nwritten bench/results/install-size.json and .md');
} finally {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
}
