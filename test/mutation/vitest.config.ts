import { defineConfig } from 'vitest/config';

// The tests Stryker runs against the mutants of the safety core
// (stryker.config.mjs). Unit tests only, and only those that run the mutated
// modules in-process: a test that drives dist/cli.js or a PTY runs the
// unmutated build and kills nothing. Left out on purpose: backup-memory
// (a 4 GiB file per mutant) and the flipper races (removal-race,
// restore-race, archive-race: nondeterministic by design; the exact races
// run in-process in removal-last-moment and cleanup-faults).
// CLEANERX_MUTATION_TESTS=<file>,<file>… narrows the set for one run (a
// quick pass over one module with its own tests): a mutant those tests let
// through may still be killed by the full set, so such a score is a floor.
const only = process.env.CLEANERX_MUTATION_TESTS?.split(',').filter(Boolean);

export default defineConfig({
  test: {
    include: only?.length
      ? only
      : [
          'test/unit/agent-lock.test.ts',
          'test/unit/anchored-fs.test.ts',
          'test/unit/archive.test.ts',
          'test/unit/backup-age.test.ts',
          'test/unit/backup-only.test.ts',
          'test/unit/backup-verify-gate.test.ts',
          'test/unit/backup.test.ts',
          'test/unit/cleanup-faults.test.ts',
          'test/unit/executor-backup.test.ts',
          'test/unit/codex-compact.test.ts',
          'test/unit/compact-proof-types.test.ts',
          'test/unit/compact.test.ts',
          'test/unit/freed-bytes.test.ts',
          'test/unit/hostile-files.test.ts',
          'test/unit/journal-bytes.test.ts',
          'test/unit/journal-marks.test.ts',
          'test/unit/mutation-*.test.ts',
          'test/unit/opencode-compact-item.test.ts',
          'test/unit/path-safety-batch.test.ts',
          'test/unit/planner-descendants.test.ts',
          'test/unit/planner-nested.test.ts',
          'test/unit/recovery-all-applied.test.ts',
          'test/unit/recovery-truth.test.ts',
          'test/unit/removal-last-moment.test.ts',
          'test/unit/residue.test.ts',
          'test/unit/restore-crash.test.ts',
          'test/unit/restore-empty-dirs.test.ts',
          'test/unit/restore-exact.test.ts',
          'test/unit/restore-list.test.ts',
          'test/unit/restore-reuse.test.ts',
          'test/unit/retention-rules.test.ts',
          'test/unit/review-confirm.test.ts',
          'test/unit/safe-json.test.ts',
          'test/unit/tagged-fit.test.ts',
          'test/unit/text.test.ts',
          'test/unit/wrap.test.ts',
        ],
    globalSetup: ['test/mutation/global-setup.ts'],
    setupFiles: ['test/mutation/agents-setup.ts'],
    pool: 'forks',
    // The machine is shared and Stryker's instrumented code is slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
