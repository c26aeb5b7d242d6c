/**
 * Start-up stays light: the built CLI is run with a resolve hook that records every module it imports
 * (each file of the bundled CLI read as the modules it holds).
 * `--version` and `--help` load no package at all; a run with one chatcompletion agent and no TTY loads
 * neither the live view (Ink), llama.cpp, the MCP SDK, other providers' packages, the servers nor the
 * framework and harness packages, nor massgen's own modules for sessions, the setup wizard and the web.
 * Timing and memory targets live in `npm run bench`, not here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_BIN, makeWorkdir, REPO_ROOT } from './cli-harness.js';

const REGISTER = path.join(REPO_ROOT, 'test', 'fixtures', 'import-trace', 'register.mjs');

/** The module URLs a CLI invocation imported. */
function modulesImported(args: string[], cwd: string): string[] {
  const trace = path.join(cwd, 'imports.txt');
  writeFileSync(trace, '');
  spawnSync(process.execPath, ['--import', REGISTER, CLI_BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, MASSGEN_IMPORT_TRACE: trace },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean).flatMap(bundledModules);
}

/** What the bundled CLI's files hold (written by scripts/bundle-cli.mjs): output file → its modules. */
const BUNDLE_DIR = path.join(REPO_ROOT, 'dist', 'cli-bundle');
const bundleContents = JSON.parse(readFileSync(path.join(BUNDLE_DIR, 'modules.json'), 'utf8')) as Record<
  string,
  string[]
>;

/**
 * A URL of the bundled CLI stands for the modules in that file (as URLs of where they were built from:
 * dist/… and node_modules/…), so the checks below name massgen's modules and packages whether the CLI
 * ran bundled or not.
 */
function bundledModules(url: string): string[] {
  const file = url.startsWith('file:') ? fileURLToPath(url) : url;
  if (path.dirname(file) !== BUNDLE_DIR) return [url];
  const inputs = bundleContents[path.basename(file)];
  if (!inputs) throw new Error(`${file} is not in ${BUNDLE_DIR}/modules.json: rebuild (npm run build)`);
  return inputs.map((input) => pathToFileURL(path.join(REPO_ROOT, input)).href);
}

/** The packages (under node_modules) a CLI invocation imported. */
function packagesImported(args: string[], cwd = makeWorkdir()): string[] {
  const packages = modulesImported(args, cwd).flatMap((url) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    return match ? [match[1]!] : [];
  });
  return [...new Set(packages)].sort();
}

/** A workdir with a one-agent chatcompletion team (its server unreachable: start-up is what counts). */
function oneAgentWorkdir(): string {
  const cwd = makeWorkdir();
  writeFileSync(
    path.join(cwd, 'team.yaml'),
    'agents:\n  - id: a\n    backend: { type: chatcompletion, model: m, base_url: "http://127.0.0.1:9/v1", max_retries: 0 }\nui: { logging_enabled: false }\n',
  );
  return cwd;
}

/** A workdir with a plain three-agent chat team: no tools, memory, media, permissions or quality settings. */
function threeAgentWorkdir(): string {
  const cwd = makeWorkdir();
  const agent = (id: string) =>
    `  - id: ${id}\n    backend: { type: chatcompletion, model: m, base_url: "http://127.0.0.1:9/v1", max_retries: 0 }\n`;
  writeFileSync(path.join(cwd, 'team.yaml'), `agents:\n${['a', 'b', 'c'].map(agent).join('')}`);
  return cwd;
}

/**
 * The modules of each capability a plain chat run does not use, by massgen's own file (dist/): the
 * permission engine loads with rules or a held call, the checkouts with `write_mode: worktree` /
 * `isolated`, the context compressor's summaries with the first request that needs one.
 */
// Each capability's modules, but not its descriptor (`capability.js`): the list of descriptors is read
// by every run (src/app/capabilities.ts) and imports nothing of the capability itself.
const CAPABILITIES: Record<string, RegExp> = {
  memory: /\/dist\/memory\/(?!capability\.js)/,
  skills: /\/dist\/skills\/(?!capability\.js)/,
  'media (attachments, read_media, generation)':
    /\/dist\/(media\/(attachments|fetch-attachment|sniff-media|read-media-file)\.js|tools\/media-generation\/(?!capability\.js))/,
  browser: /\/dist\/tools\/browser\/(?!capability\.js)/,
  computer: /\/dist\/tools\/computer\/(?!capability\.js)/,
  'quality loop':
    /\/dist\/coordination\/quality\/(quality-setup|criteria-setup|quality-book|policies|checklist-turn|decomposition-turn|checklist-tool)\.js/,
  queue: /\/dist\/queue\//,
  'eval harness': /\/dist\/eval\//,
  'permission rules':
    /\/dist\/(tools\/permissions\/(rules|rule-policy|denied-on-disk|index)|app\/tool-permissions)\.js/,
  // The compressor's summarising code loads with the first request near the context window.
  'context compression': /\/dist\/compression\/(index|compressor|plan|summary-prompt)\.js/,
  worktrees:
    /\/dist\/workspace\/(isolated-context|apply-plan|apply-transaction|branch-changes|by-hand|nested-repos)\.js/,
};

const HEAVY = [
  // Backends call the provider's model directly; only an AI SDK agent or a claude/gemini model wrapper
  // needs the `ai` package (and the telemetry API it loads).
  'ai',
  '@opentelemetry/api',
  'ink',
  'react',
  // Tool arguments are checked against JSON Schema only once a tool with one is called.
  'ajv',
  'node-llama-cpp',
  '@modelcontextprotocol/sdk',
  '@ai-sdk/anthropic',
  '@ai-sdk/google',
  '@ai-sdk/xai',
  '@ai-sdk/azure',
  '@ai-sdk/openai',
  '@hono/node-server',
  'hono',
  'ws',
  '@langchain/core',
  '@openai/agents',
  '@anthropic-ai/claude-agent-sdk',
  '@openai/codex-sdk',
  '@google/gemini-cli',
  // The memory store (memory.enabled, massgen memory) only.
  '@lancedb/lancedb',
  'apache-arrow',
  // The queue (massgen batch/serve --queue, massgen worker) only.
  'bullmq',
  'ioredis',
  // The browser tools (tools.browser), on an agent's first browser call only.
  'playwright-core',
  // Media type sniffing (attachments, media files), on first use only.
  'file-type',
  // Tool-name and path globs, and "did you mean" suggestions: with the first glob or mistake only.
  'picomatch',
  'fastest-levenshtein',
];

describe('what start-up imports', () => {
  it.each([['--version'], ['--help']])('%s imports no package at all', (flag) => {
    expect(packagesImported([flag])).toEqual([]);
  });

  it('a one-agent chatcompletion run without a terminal loads none of the heavy packages', () => {
    const cwd = oneAgentWorkdir();
    const imported = packagesImported(['--config', 'team.yaml', 'question'], cwd);
    expect(imported).toContain('@ai-sdk/openai-compatible'); // It did get as far as its provider.
    expect(imported.filter((pkg) => HEAVY.includes(pkg))).toEqual([]);
  });

  it('a run loads none of massgen’s own modules for sessions, the setup wizard, the web, MCP or step mode', () => {
    const cwd = oneAgentWorkdir();
    const own = modulesImported(['--config', 'team.yaml', 'question'], cwd).filter((url) =>
      url.includes('/dist/'),
    );
    expect(own.some((url) => url.endsWith('/dist/app/run-massgen.js'))).toBe(true);
    const unneeded =
      /\/dist\/(app\/(sessions|browse-files|chat-run|config-choices|setup-wizard\/wizard|step-run|step-session)\.js|cli\/interactive\/|cli\/(mcp|skill|step)-command\.js|server\/|mcp-server\/)/;
    expect(own.filter((url) => unneeded.test(url))).toEqual([]);
  });

  it('a run without a terminal loads neither the live view, the capabilities (only their descriptors) nor the quality loop', () => {
    const cwd = oneAgentWorkdir();
    const own = modulesImported(['--config', 'team.yaml', 'question'], cwd).filter((url) =>
      url.includes('/dist/'),
    );
    expect(own.some((url) => url.endsWith('/dist/app/run-massgen.js'))).toBe(true);
    // Each capability's modules load when a run uses it (src/app/capabilities.ts), the live view with a
    // terminal (src/tui/live-view-entry.ts), the quality loop with checklist_gated or decomposition.
    const features =
      /\/dist\/(tui\/(?!live-view-entry\.js)|(skills|memory|bridge|task-plan|ask-others|subagents|hooks|project-instructions|tools\/(browser|computer|media-generation))\/(?!capability\.js)|app\/(validate|capability-checks)\.js|coordination\/quality\/(quality-setup|criteria-setup|quality-book|policies|checklist-turn|decomposition-turn|checklist-tool)\.js)/;
    expect(own.filter((url) => features.test(url))).toEqual([]);
    // The list itself is read: every capability's descriptor, and nothing else of it.
    const descriptors = new Set(own.flatMap((url) => /\/dist\/(.+)\/capability\.js$/.exec(url)?.[1] ?? []));
    expect([...descriptors].sort()).toEqual([
      'bridge',
      'hooks',
      'memory',
      'project-instructions',
      'skills',
      'task-plan',
      'tools/browser',
      'tools/computer',
      'tools/custom',
      'tools/media-generation',
    ]);
  });

  it('a plain three-agent chat run loads the modules of no capability it does not use', () => {
    const cwd = threeAgentWorkdir();
    const own = modulesImported(['--config', 'team.yaml', 'question'], cwd).filter((url) =>
      url.includes('/dist/'),
    );
    expect(own.some((url) => url.endsWith('/dist/app/run-massgen.js'))).toBe(true);
    // It got as far as its agents' provider: the Chat Completions reader loaded.
    expect(own.some((url) => url.endsWith('/dist/backends/chatcompletion/chat-stream.js'))).toBe(true);
    const loaded = Object.entries(CAPABILITIES).flatMap(([capability, pattern]) =>
      own.filter((url) => pattern.test(url)).map((url) => `${capability}: ${url.replace(/.*\/dist\//, '')}`),
    );
    expect(loaded).toEqual([]);
  });

  it('a plain three-agent chatcompletion run loads no other backend’s modules', () => {
    const cwd = threeAgentWorkdir();
    const own = modulesImported(['--config', 'team.yaml', 'question'], cwd).filter((url) =>
      url.includes('/dist/'),
    );
    expect(own.some((url) => url.endsWith('/dist/backends/chatcompletion/chat-stream.js'))).toBe(true);
    // src/backends/backend-table.ts loads a backend's folder only when a config uses its type. The
    // local model's default name and its `hf:` reference parser are not the backend: the CLI reads
    // them to pick the zero-key default before any config exists.
    const lightFacts = new Set(['backends/local/default-model.js', 'backends/local/model-ref.js']);
    const others = own
      .map((url) => url.replace(/.*\/dist\//, ''))
      .filter((file) => !lightFacts.has(file))
      .filter((file) =>
        /^backends\/(openai|claude|gemini|grok|azure-openai|local-servers|local|demo|external|harness)\//.test(
          file,
        ),
      );
    expect(others).toEqual([]);
  });

  it('a batch without --queue loads neither bullmq nor ioredis nor the queue modules', () => {
    const cwd = oneAgentWorkdir();
    writeFileSync(path.join(cwd, 'q.jsonl'), '{"id": "q1", "question": "question"}\n');
    const args = ['batch', '--config', 'team.yaml', '--input', 'q.jsonl', '--output', 'r.jsonl'];
    const modules = modulesImported(args, cwd);
    expect(modules.some((url) => url.endsWith('/dist/batch/run-batch.js'))).toBe(true);
    expect(modules.filter((url) => /\/dist\/queue\//.test(url))).toEqual([]);
    const packages = modules.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []);
    expect(packages.filter((pkg) => HEAVY.includes(pkg))).toEqual([]);
  });
});
