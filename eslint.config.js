// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const folders = [
  'util',
  'types',
  'media',
  'coordination',
  'backends',
  'tools',
  'workspace',
  'config',
  'logging',
  'capability',
  'bridge',
  'memory',
  'skills',
  'compression',
  'hooks',
  'project-instructions',
  'task-plan',
  'ask-others',
  'app',
  'subagents',
  'batch',
  'queue',
  'eval',
  'cli',
  'tui',
  'server',
  'mcp-server',
  'ai-provider',
  'testing',
];
const io = [
  'node:fs',
  'node:fs/promises',
  'node:child_process',
  'node:net',
  'node:http',
  'node:https',
  'fs',
  'child_process',
];

/**
 * Folders whose modules are one capability's (docs/architecture.md, "How to add a capability"): the
 * app may import only their descriptor, `capability.ts`; the rest loads when a run uses them.
 */
const capabilityFolders = [
  'bridge',
  'memory',
  'skills',
  'tools/browser',
  'tools/computer',
  'tools/media-generation',
  'task-plan',
  'hooks',
  'project-instructions',
];

/** Only the descriptor of each capability folder (for the composition root). */
const descriptorsOnly = capabilityFolders.map((dir) => ({
  group: [`**/${dir}/*`, `!**/${dir}/capability.js`],
  message: `app imports only ${dir}/capability.js: the rest of a capability loads when a run uses it`,
}));

/**
 * Layer rules from docs/architecture.md: `src/<from>` may import only the folders in `allowed`
 * (dependencies point downward). `pure` layers also get no I/O modules and no `process`; `also` adds
 * restrictions of its own. `files` narrows the rule to some files of the folder.
 */
const layer = (from, allowed, { pure = false, also = [], files = [`src/${from}/**/*.{ts,tsx}`] } = {}) => ({
  files,
  ignores: ['**/*.test.ts', '**/*.test.tsx', '**/*.test-support.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: pure
          ? io.map((name) => ({ name, message: `${from} is pure: no file, network or process access` }))
          : [],
        patterns: [
          ...folders
            .filter((dir) => dir !== from && !allowed.includes(dir))
            .map((dir) => ({
              group: [`**/${dir}/*`, `**/${dir}`],
              message: `${from} may import only: ${allowed.join(', ') || 'nothing internal'}`,
            })),
          ...also,
        ],
      },
    ],
    ...(pure
      ? {
          'no-restricted-globals': [
            'error',
            { name: 'process', message: `${from} receives everything through interfaces` },
          ],
        }
      : {}),
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.massgen/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  layer('util', []),
  layer('types', ['util']),
  // Media files for models: type from the bytes, limits, attachments (docs/multimodal.md).
  layer('media', ['types', 'util']),
  layer('coordination', ['types', 'util'], { pure: true }),
  layer('backends', ['types', 'util']),
  layer('tools', ['types', 'util', 'media']),
  // A tool folder's capability modules wire its tools into a run: they read the config and the run.
  layer('tools', ['types', 'util', 'media', 'config', 'capability', 'backends'], {
    files: ['src/tools/*/capability.ts', 'src/tools/*/*-capability.ts'],
  }),
  layer('workspace', ['types', 'util']),
  layer('config', ['types', 'util']),
  layer('logging', ['types', 'util']),
  layer('testing', ['types', 'coordination', 'util']),
  // The interface between a run and its capabilities; each capability's folder imports it.
  layer('capability', ['types', 'util', 'config', 'tools', 'workspace', 'media']),
  // Other runtimes and frameworks: Python tools and agents, agents from other frameworks.
  layer('bridge', ['types', 'util', 'config', 'tools', 'backends', 'capability']),
  layer('memory', ['types', 'util', 'tools', 'config', 'capability']),
  // Agent Skills: SKILL.md discovery, the load_skill tool, proposed skills (docs/skills.md).
  layer('skills', ['types', 'util', 'tools', 'config', 'capability']),
  // Context that never overflows: summaries of older steps, large tool results to files (docs/compression.md).
  layer('compression', ['types', 'util', 'config']),
  // The user's hooks around tool calls, run in the command tool's OS sandbox (docs/hooks.md).
  layer('hooks', ['types', 'util', 'tools', 'config', 'capability']),
  // AGENTS.md / CLAUDE.md for the agents (docs/hooks.md); `@path` in a question is workspace's.
  layer('project-instructions', ['types', 'util', 'tools', 'config', 'capability']),
  // An agent's own work: task plans (docs/task-plans.md) and ask_others (docs/ask-others.md).
  layer('task-plan', ['types', 'util', 'tools', 'capability', 'config']),
  layer('ask-others', ['types', 'util', 'tools', 'capability', 'config']),
  // The composition root sees every layer beneath it (folders lists them in order, app first above),
  // and of each capability only its descriptor.
  layer('app', folders.slice(0, folders.indexOf('app')), { also: descriptorsOnly }),
  // Subagents (docs/subagents.md): each a whole run started through app; app loads this folder with
  // import() only when a config enables them.
  layer('subagents', ['app', 'capability', 'config', 'logging', 'tools', 'types', 'util']),
  // Batch runs are a view over the library API; the queue moves runs to workers and their events back.
  layer('batch', ['app', 'media', 'types', 'util']),
  layer('queue', ['batch', 'app', 'subagents', 'types', 'util']),
  // Evals read result lines and run logs; the judge is one model call through app's backends;
  // HumanEval's tests run in the command tool's OS sandbox.
  layer('eval', ['batch', 'app', 'config', 'tools', 'types', 'util']),
  // `massgen memory` and `massgen skills` manage their capability's store and folders directly.
  layer('cli', [
    'app',
    'media',
    'types',
    'util',
    'tui',
    'server',
    'batch',
    'queue',
    'eval',
    'mcp-server',
    'memory',
    'skills',
  ]),
  layer('tui', ['app', 'media', 'types', 'util']),
  layer('server', ['app', 'media', 'types', 'util']),
  // massgen as an MCP server: a front end over runs, reusing the HTTP guard and run slots of server/.
  layer('mcp-server', ['server', 'batch', 'app', 'types', 'util']),
  layer('ai-provider', ['app', 'types', 'util']),
);
