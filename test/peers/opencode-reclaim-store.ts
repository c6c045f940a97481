// Snapshot git dirs as OpenCode 1.18 lays them out, made with the system
// git the way OpenCode runs it (GIT_DIR = <data>/snapshot/<project>/<sha1
// (worktree)>, GIT_WORK_TREE = the worktree, `add` then `write-tree`), and
// the step parts that record each snapshot hash in the session's rows.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { worktreeHash } from '../../src/adapters/opencode/snapshots.js';
import { allocatedBytes } from '../../src/engine/host/fsx.js';

const GIT_ENV = { PATH: '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' };

export function git(gitdir: string, worktree: string | null, args: string[], input?: string): string {
  const env = { ...GIT_ENV, GIT_DIR: gitdir, ...(worktree ? { GIT_WORK_TREE: worktree } : {}) };
  const r = spawnSync('git', args, { cwd: worktree ?? gitdir, env, input, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

export interface MadeRepo {
  gitdir: string;
  /** One tree hash per step, oldest first. */
  trees: string[];
}

/** `steps` snapshots of a worktree, each step rewriting `filesPerStep` files with fresh content. */
export function makeSnapshotRepo(dataDir: string, projectId: string, worktree: string, steps: number, filesPerStep = 4, bytesPerFile = 20_000): MadeRepo {
  const gitdir = join(dataDir, 'snapshot', projectId, worktreeHash(worktree));
  mkdirSync(gitdir, { recursive: true });
  mkdirSync(worktree, { recursive: true });
  git(gitdir, worktree, ['init', '-q']);
  for (const [k, v] of [
    ['core.autocrlf', 'false'],
    ['core.longpaths', 'true'],
    ['core.symlinks', 'true'],
    ['core.fsmonitor', 'false'],
    ['feature.manyFiles', 'true'],
  ] as const) {
    git(gitdir, null, ['--git-dir', gitdir, 'config', k, v]);
  }
  const trees: string[] = [];
  for (let s = 0; s < steps; s++) {
    for (let f = 0; f < filesPerStep; f++) {
      writeFileSync(join(worktree, `snap${f}.txt`), `${projectId} step ${s} file ${f}\n`.repeat(Math.ceil(bytesPerFile / 30)) + `${Math.random()}\n`);
    }
    git(gitdir, worktree, ['add', '-A', '.']);
    trees.push(git(gitdir, worktree, ['write-tree']).trim());
  }
  return { gitdir, trees };
}

let partNo = 0;
/** Records `hash` as a step-start snapshot of one of the session's messages, as OpenCode's step parts do. */
export function recordSnapshot(db: string, sessionId: string, hash: string): void {
  const d = new Database(db);
  try {
    const m = d.prepare('SELECT id FROM message WHERE session_id = ? ORDER BY id LIMIT 1').get(sessionId) as { id: string } | undefined;
    if (!m) throw new Error(`session ${sessionId} has no message`);
    const now = Date.now();
    d.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(
      `prt_snap${String(++partNo).padStart(20, '0')}`,
      m.id,
      sessionId,
      now,
      now,
      JSON.stringify({ type: 'step-start', snapshot: hash }),
    );
  } finally {
    // As OpenCode ends: a reader keeps the writer's close from checkpointing, so -wal and -shm stay.
    const reader = new Database(db, { readonly: true, fileMustExist: true });
    reader.prepare('SELECT 1').get();
    d.close();
    reader.close();
  }
}

/** Allocated bytes of a tree, as du counts them (links count 0, never followed). */
export function duBytes(p: string): number {
  const st = lstatSync(p);
  let n = allocatedBytes(st);
  if (st.isDirectory() && !st.isSymbolicLink()) for (const c of readdirSync(p)) n += duBytes(join(p, c));
  return n;
}

/** Sets a file's mtime `hours` into the past. */
export function age(p: string, hours: number): void {
  const t = (Date.now() - hours * 3600_000) / 1000;
  utimesSync(p, t, t);
}

/** Every object id the repository can read (packed and loose). */
export function allObjects(gitdir: string): Set<string> {
  const out = git(gitdir, null, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']);
  return new Set(out.split('\n').filter(Boolean));
}

/** A tree and every tree and blob under it. */
export function treeClosure(gitdir: string, tree: string): string[] {
  const out = git(gitdir, null, ['ls-tree', '-r', '-t', tree]);
  return [
    tree,
    ...out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(/\s+/)[2]!),
  ];
}

export function looseCount(gitdir: string): number {
  return readdirSync(join(gitdir, 'objects'))
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((a, d) => a + readdirSync(join(gitdir, 'objects', d)).length, 0);
}
