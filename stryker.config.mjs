// Mutation testing of the safety core (#26 item 5): `npm run mutation`.
// Incremental: the result of every mutant is kept in the committed
// test/mutation/stryker-incremental.json and a rerun tests only mutants
// whose code or covering tests changed. See docs/testing.md.
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', pool: 'forks' },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/engine/cleanup/**/*.ts',
    'src/engine/host/anchored-fs.ts',
    'src/modals/review.ts',
    'src/backup/take.ts',
    'src/backup/archive.ts',
    'src/backup/restore*.ts',
    'src/engine/inventory/retention/plan-file.ts',
    'src/engine/core/text.ts',
  ],
  coverageAnalysis: 'perTest',
  // Mutants run at module load would need every test per mutant.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'test/mutation/stryker-incremental.json',
  // Shared two-core machine: one worker (run it under `nice`).
  concurrency: 1,
  checkers: [],
  // The first run (every related test, with coverage) takes minutes on a loaded machine.
  dryRunTimeoutMinutes: 60,
  timeoutMS: 60_000,
  timeoutFactor: 3,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['bench/.stores', 'bench/.prof', 'coverage', 'reports', '.scratch*'],
  cleanTempDir: true,
};
