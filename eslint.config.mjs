import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['assert', 'buffer', 'child_process', 'crypto', 'dns', 'events', 'fs', 'http', 'https', 'net', 'os', 'path', 'process', 'stream', 'timers', 'tls', 'url', 'util', 'worker_threads', 'zlib'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.cache/**', '.data/**', 'coverage/**', 'test/support/summary-reporter.js'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node APIs, no I/O, no infrastructure.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: NODE_BUILTINS.map((name) => ({ name, message: 'Workflows must be deterministic: no Node built-ins.' })),
          patterns: [
            { group: ['node:*'], message: 'Workflows must be deterministic: no Node built-ins.' },
            { group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@mikro-orm/*', 'pg', 'koa', '@koa/*', 'undici', 'pino'], message: 'Workflows may import only @temporalio/workflow, src/domain and activity types.' },
          ],
        },
      ],
    },
  },
);
