// The order vitest starts files in: the longest first, so no worker starts a
// long file when the others are nearly done. Vitest does so from its results
// cache (node_modules/.vite), which a fresh clone — CI — does not have; it
// then starts the largest files first, and the journeys tier's longest files
// are among its smallest (terminals-<size>.test.ts). Without a cached
// duration a file takes the one measured here (seconds, `npx vitest run
// test/pty test/peers` on the shared 2-core machine at load ~15, 2026-12-07);
// only the order matters, a file missing here keeps vitest's own place.

import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const MEASURED = new Map<string, number>([
  ['test/peers/opencode-routes.test.ts', 177],
  ['test/peers/opencode-compact-outcomes.test.ts', 172],
  ['test/pty/demo-exit.test.ts', 145],
  ['test/pty/sessions-views.test.ts', 145],
  ['test/peers/opencode-cleanup.test.ts', 141],
  ['test/peers/codex-compact.test.ts', 130],
  ['test/pty/terminals-100x30.test.ts', 117],
  ['test/peers/opencode-server-export.test.ts', 117],
  ['test/pty/terminals-160x45.test.ts', 114],
  ['test/pty/terminals-80x24.test.ts', 111],
  ['test/pty/whole-sentences-journey.test.ts', 85],
  ['test/pty/prompt-busy-journey.test.ts', 73],
  ['test/pty/i18n-journey.test.ts', 67],
  ['test/pty/reclaim-journey.test.ts', 65],
  ['test/peers/opencode-reclaim.test.ts', 59],
  ['test/pty/opencode-journey.test.ts', 54],
  ['test/pty/no-color.test.ts', 49],
  ['test/pty/terminals.test.ts', 44],
  ['test/pty/explain-journey.test.ts', 42],
  ['test/pty/agent-sweep-detail.test.ts', 40],
  ['test/peers/fleet-scan.test.ts', 40],
]);

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const place = new Map(base.map((s, i) => [s, i]));
    const known = (s: TestSpecification): number | undefined => {
      const file = relative(root, s.moduleId);
      const cached = cache.getFileTestResults(`${s.project.name}:${file}`);
      // A file that failed last time goes first, as vitest has it.
      if (cached?.failed) return Number.POSITIVE_INFINITY;
      return cached?.duration ?? (MEASURED.has(file) ? MEASURED.get(file)! * 1000 : undefined);
    };
    // Within each group and project (vitest runs those one after another), a file with a duration goes by
    // it, longest first, ahead of the files without one, which keep vitest's order.
    const sorted = [...base].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      if (a.project.name !== b.project.name) return place.get(a)! - place.get(b)!;
      const [da, db] = [known(a), known(b)];
      if (da !== undefined && db !== undefined && da !== db) return db - da;
      if (da !== undefined && db === undefined) return -1;
      if (da === undefined && db !== undefined) return 1;
      return place.get(a)! - place.get(b)!;
    });
    return sorted;
  }
}
