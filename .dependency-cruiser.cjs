/**
 * Import rules checked by test/unit/import-cycles.test.ts (and `npx depcruise src workflows activities workers`):
 * no module imports itself back, type-only imports included. A part hands nothing back up to what
 * mounts it (the house rule).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle, type-only imports included: move the shared type or value into its own module.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
