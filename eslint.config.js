// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Layer rules from docs/architecture.md: dependencies point downward only. */
const layer = (from, forbidden, message) => ({
  files: [`src/${from}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((dir) => ({ group: [`**/${dir}/*`, `**/${dir}`], message })),
      },
    ],
  },
});

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
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  layer(
    'util',
    [
      'types',
      'coordination',
      'backends',
      'tools',
      'workspace',
      'config',
      'logging',
      'app',
      'cli',
      'tui',
      'server',
      'testing',
    ],
    'util imports nothing internal',
  ),
  layer(
    'types',
    [
      'coordination',
      'backends',
      'tools',
      'workspace',
      'config',
      'logging',
      'app',
      'cli',
      'tui',
      'server',
      'testing',
    ],
    'types may import util only',
  ),
  {
    files: ['src/coordination/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: io.map((name) => ({
            name,
            message: 'coordination is pure: no file, network or process access',
          })),
          patterns: [
            'backends',
            'tools',
            'workspace',
            'config',
            'logging',
            'app',
            'cli',
            'tui',
            'server',
            'testing',
          ].map((dir) => ({
            group: [`**/${dir}/*`, `**/${dir}`],
            message: 'coordination may import types and util only',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'coordination receives everything through interfaces' },
      ],
    },
  },
  layer(
    'backends',
    ['coordination', 'tools', 'workspace', 'config', 'logging', 'app', 'cli', 'tui', 'server', 'testing'],
    'backends may import types and util only',
  ),
  layer(
    'tools',
    ['coordination', 'backends', 'workspace', 'config', 'logging', 'app', 'cli', 'tui', 'server', 'testing'],
    'tools may import types and util only',
  ),
  layer(
    'config',
    ['coordination', 'backends', 'tools', 'workspace', 'logging', 'app', 'cli', 'tui', 'server', 'testing'],
    'config may import types and util only',
  ),
  layer(
    'logging',
    ['coordination', 'backends', 'tools', 'workspace', 'config', 'app', 'cli', 'tui', 'server', 'testing'],
    'logging may import types and util only',
  ),
  layer(
    'testing',
    ['backends', 'tools', 'workspace', 'config', 'logging', 'app', 'cli', 'tui', 'server'],
    'testing may import types, coordination and util',
  ),
  layer(
    'cli',
    ['coordination', 'backends', 'tools', 'workspace', 'config', 'logging'],
    'front ends go through app and types',
  ),
);
