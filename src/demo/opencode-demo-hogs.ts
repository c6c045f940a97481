// What fills a real OpenCode server's disk, in the demo's store (#28.6): a
// snapshot repository whose older snapshots no session refers to any more
// (gc gives them back), a leaked pack of an interrupted git (stale: safe to
// remove) beside one still being written (fresh: left alone), and free
// pages that deleted sessions left inside opencode.db (Compact). Written
// into the store being built, before it is moved into place; without a
// system git there is no repository, as on a machine where OpenCode cannot
// snapshot either.

import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import type { OpencodeFixtureManifest } from '../adapters/opencode/fixture.js';
import { ageLooseObjects, hasGit, leakPack, makeSnapshotRepo, recordSnapshot } from '../adapters/opencode/fixture-snapshots.js';

/** Source-like text that does not compress away, so the repository weighs what a real one does. */
const noisy = (projectId: string, step: number, file: number, bytes: number): string =>
  `// ${projectId} step ${step} file ${file}\n${randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64')}\n`;

export function addOpencodeHogs(db: string, dataDir: string, m: OpencodeFixtureManifest, now: number): void {
  const root = m.sessions.find((s) => s.parentId === null && !s.archivedAt);
  const project = root && m.projects.find((p) => p.id === root.projectId);
  if (root && project && hasGit()) {
    const repo = makeSnapshotRepo(dataDir, project.id, project.worktree, 10, 4, 64_000, noisy);
    // The newest snapshot is the live session's; the nine before it are what gc frees.
    recordSnapshot(db, root.id, repo.trees.at(-1)!);
    ageLooseObjects(repo.gitdir, 48, now);
    leakPack(repo.gitdir, 'tmp_pack_Q7dmo1', 600_000, 48, now);
    leakPack(repo.gitdir, 'tmp_pack_Q7dmo2', 120_000, 0, now);
  }
  // Deleted sessions' pages: written, then dropped and checkpointed, so the file keeps them as free pages.
  const d = new Database(db);
  try {
    d.exec('CREATE TABLE cleanerx_demo_deleted (b BLOB)');
    const put = d.prepare('INSERT INTO cleanerx_demo_deleted (b) VALUES (?)');
    d.transaction(() => {
      for (let i = 0; i < 300; i++) put.run(randomBytes(8_000));
    })();
    d.exec('DROP TABLE cleanerx_demo_deleted');
    d.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    d.close();
  }
}
