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
  'bridge',
  'memory',
  'skills',
  'task-plan',
  'ask-others',
  'app',
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
 * Layer rules from docs/architecture.md: `src/<from>` may import only the folders in `allowed`
 * (dependencies point downward). `pure` layers also get no I/O modules and no `process`.
 */
const layer = (from, allowed, { pure = false } = {}) => ({
  files: [`src/${from}/**/*.{ts,tsx}`],
  ignores: ['**/*.test.ts', '**/*.test.tsx', '**/*.test-support.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: pure
          ? io.map((name) => ({ name, message: `${from} is pure: no file, network or process access` }))
          : [],
        patterns: folders
          .filter((dir) => dir !== from && !allowed.includes(dir))
          .map((dir) => ({
            group: [`**/${dir}/*`, `**/${dir}`],
            message: `${from} may import only: ${allowed.join(', ') || 'nothing internal'}`,
          })),
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
  layer('workspace', ['types', 'util']),
  layer('config', ['types', 'util']),
  layer('logging', ['types', 'util']),
  layer('testing', ['types', 'coordination', 'util']),
  layer('bridge', ['types', 'util']),
  layer('memory', ['types', 'util', 'tools', 'config']),
  // Agent Skills: SKILL.md discovery, the load_skill tool, proposed skills (docs/skills.md).
  layer('skills', ['types', 'util', 'tools']),
  // An agent's own work: task plans (docs/task-plans.md) and ask_others (docs/ask-others.md).
  layer('task-plan', ['types', 'util', 'tools']),
  layer('ask-others', ['types', 'util', 'tools']),
  // The composition root sees every layer beneath it (folders lists them in order, app first above).
  layer('app', folders.slice(0, folders.indexOf('app'))),
  // Batch runs are a view over the library API; the queue moves runs to workers and their events back.
  layer('batch', ['app', 'media', 'types', 'util']),
  layer('queue', ['batch', 'app', 'types', 'util']),
  // Evals read result lines and run logs; the judge is one model call through app's backends;
  // HumanEval's tests run in the command tool's OS sandbox.
  layer('eval', ['batch', 'app', 'config', 'tools', 'types', 'util']),
  layer('cli', ['app', 'media', 'types', 'util', 'tui', 'server', 'batch', 'queue', 'eval', 'mcp-server']),
  layer('tui', ['app', 'media', 'types', 'util']),
  layer('server', ['app', 'media', 'types', 'util']),
  // massgen as an MCP server: a front end over runs, reusing the HTTP guard and run slots of server/.
  layer('mcp-server', ['server', 'batch', 'app', 'types', 'util']),
  layer('ai-provider', ['app', 'types', 'util']),
);
