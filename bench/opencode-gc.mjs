// opencode-gc: the snapshot gc item on a repository of loose objects (2 GiB
// at scale 1, CLEANERX_BENCH_GC_SCALE=1; 0.2 GiB by default): six snapshots
// of a worktree whose files all change each step (random base64, so zlib
// and deltas cannot make the work vanish), on a real OpenCode 1.18.33
// database (made by `opencode db path`) whose sessions refer to three of
// them, so gc packs half the bytes and prunes the other half. cleanerx's side is
// the whole command a user runs: `cleanerx clean --agent opencode --id
// <gc item> --yes` (the scan, the plan, the journal, the writer check, the
// pins, git gc --prune=1.hour.ago, the check that every pinned snapshot is
// still readable, the freed bytes). The reference is `git gc
// --prune=1.hour.ago` alone, the same expiry, on an identical copy. Each run
// on a fresh copy, the two sides alternating; wall and CPU (user + sys of
// the process tree). Target (#28.4): within 1.3× of the reference.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, isolatedEnvFor, median, ROOT, STORES, timeTree, pairedRuns } from './lib/util.mjs';

export const name = 'opencode-gc';
export const target = 1.3;
const RUNS = Number(process.env.CLEANERX_BENCH_RUNS ?? 3);
const SCALE = Number(process.env.CLEANERX_BENCH_GC_SCALE ?? 0.1);
const BLOB = 256 * 1024;
const STEPS = 6;
const DIST = join(ROOT, 'dist');
const OPENCODE = join(ROOT, 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');
const GIT_ENV = { PATH: '/usr/bin:/bin', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

const du = (p) => Number(spawnSync('du', ['-sB1', p], { encoding: 'utf8' }).stdout.split('\t')[0]);

async function template(log) {
  const dir = join(STORES, `opencode-gc-${SCALE}`);
  const marker = join(dir, 'store.json');
  if (existsSync(marker)) return { dir, ...JSON.parse(readFileSync(marker, 'utf8')) };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const f = await import(join(DIST, 'adapters', 'opencode', 'fixture.js'));
  const snaps = await import(join(DIST, 'adapters', 'opencode', 'fixture-snapshots.js'));
  const { gcItemId } = await import(join(DIST, 'adapters', 'opencode', 'snapshots.js'));
  const sandbox = join(dir, 'sandbox');
  const env = f.opencodeSandboxEnv(await isolatedEnvFor(sandbox), join(sandbox, 'tmp'));
  mkdirSync(env.HOME, { recursive: true });
  f.writeNpmGuard(join(env.XDG_CONFIG_HOME, 'opencode'));
  const db = join(env.XDG_DATA_HOME, 'opencode', 'opencode.db');
  log(`  building the OpenCode store and a ${(SCALE * 2).toFixed(1)} GiB snapshot repository (once)…`);
  await f.initOpencodeStore(OPENCODE, env, db);
  const m = f.buildOpencodeFixture({
    db,
    workRoot: join(dir, 'work'),
    projects: 1,
    rootsPerProject: 3,
    childrenPerRoot: 0,
    grandchildren: 0,
    forks: 0,
    archived: 0,
    messagesPerSession: 2,
    partBytes: 200,
    seed: 5,
  });
  const p = m.projects[0];
  const sessions = m.sessions.filter((s) => s.projectId === p.id);
  // Six snapshots of a worktree whose every file changes each step; three are referred to by sessions (kept, packed by
  // gc), three by nothing (pruned): half the loose bytes stay, half go.
  const files = Math.max(1, Math.round((SCALE * 2 * 2 ** 30) / STEPS / BLOB));
  const content = () => randomBytes((BLOB * 3) / 4).toString('base64');
  const repo = snaps.makeSnapshotRepo(join(env.XDG_DATA_HOME, 'opencode'), p.id, p.worktree, STEPS, files, BLOB, content);
  [1, 3, 5].forEach((step, i) => snaps.recordSnapshot(db, sessions[i % sessions.length].id, repo.trees[step]));
  snaps.ageLooseObjects(repo.gitdir, 48);
  const store = {
    gitdir: repo.gitdir.slice(sandbox.length + 1),
    kept: [1, 3, 5].map((step) => repo.trees[step]),
    itemId: gcItemId({ projectId: p.id, hash: repo.gitdir.split('/').pop() }),
  };
  writeFileSync(marker, JSON.stringify(store));
  return { dir, ...store };
}

async function copy(tpl) {
  const root = mkdtempSync(join(tmpdir(), 'cleanerx-bench-oc-gc-'));
  const cp = spawnSync('cp', ['-a', join(tpl.dir, 'sandbox'), join(root, 'sandbox')]);
  if (cp.status !== 0) throw new Error(`cp failed: ${cp.stderr}`);
  const f = await import(join(DIST, 'adapters', 'opencode', 'fixture.js'));
  const sandbox = join(root, 'sandbox');
  const base = await isolatedEnvFor(sandbox, { CLEANERX_PROC_ROOT: join(root, 'proc') });
  const env = { ...f.opencodeSandboxEnv(base, join(sandbox, 'tmp')), PATH: `${join(OPENCODE, '..')}:/usr/bin:/bin` };
  env.OPENCODE_DB = join(env.XDG_DATA_HOME, 'opencode', 'opencode.db');
  mkdirSync(env.CLEANERX_PROC_ROOT, { recursive: true });
  return { root, env, gitdir: join(sandbox, tpl.gitdir) };
}

export async function run({ log }) {
  const tpl = await template(log);
  const ours = [];
  const reference = [];
  for (let i = 0; i < RUNS; i++) {
    for (const side of i % 2 ? ['reference', 'ours'] : ['ours', 'reference']) {
      const c = await copy(tpl);
      try {
        if (side === 'reference') {
          const pins = tpl.kept.map((h, k) => `update refs/bench-keep/${k} ${h}\n`).join('');
          const pin = spawnSync('git', ['update-ref', '--stdin'], { env: { ...GIT_ENV, GIT_DIR: c.gitdir }, input: pins });
          if (pin.status !== 0) throw new Error(`git update-ref failed: ${pin.stderr}`);
        }
        const before = du(c.gitdir);
        const r =
          side === 'ours'
            ? await timeTree(process.execPath, [CLI, 'clean', '--agent', 'opencode', '--id', tpl.itemId, '--yes'], { env: c.env, cwd: c.root, capture: true })
            : await timeTree('/usr/bin/git', ['-c', 'gc.auto=0', 'gc', '--prune=1.hour.ago', '--quiet'], {
                env: { ...GIT_ENV, GIT_DIR: c.gitdir },
                cwd: c.gitdir,
              });
        if (side === 'ours' && !/Cleanup complete/.test(r.stdout)) throw new Error(`cleanerx did not complete the gc: ${r.stdout.slice(0, 500)}`);
        (side === 'ours' ? ours : reference).push({ ...r, freed: before - du(c.gitdir), before });
      } finally {
        rmSync(c.root, { recursive: true, force: true });
      }
    }
  }
  const wall = (xs) => median(xs.map((x) => x.ms));
  const cpu = (xs) => median(xs.map((x) => x.cpuMs));
  const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;
  const paired = pairedRuns(ours, reference);
  const { wallRatio, cpuRatio } = paired;
  const freed = (xs) => median(xs.map((x) => x.freed));
  const apart = Math.abs(freed(ours) - freed(reference)) / Math.max(1, freed(reference));
  if (apart > 0.02) log(`  the two sides freed different bytes (${gib(freed(ours))} vs ${gib(freed(reference))}): the figures compare different work`);
  log(`  a ${gib(ours[0].before)} repository (scale ${SCALE}); ${RUNS} runs per side, alternating`);
  const lines = [
    `cleanerx clean (gc item): ${(wall(ours) / 1000).toFixed(1)} s wall, ${(cpu(ours) / 1000).toFixed(1)} s CPU, freed ${gib(freed(ours))}; git gc alone: ${(wall(reference) / 1000).toFixed(1)} s wall, ${(cpu(reference) / 1000).toFixed(1)} s CPU, freed ${gib(freed(reference))}`,
    paired.line,
  ];
  return {
    name,
    ours: wall(ours),
    reference: wall(reference),
    ratio: wallRatio,
    target,
    runs: paired.runs,
    figures: [
      { label: `OpenCode snapshot gc of ${gib(ours[0].before)} vs git gc with the same expiry (wall)`, value: wallRatio, unit: '×', op: '≤', target },
      { label: 'the same, CPU', value: cpuRatio, unit: '×', op: '≤', target },
    ],
    extra: { lines, scale: SCALE },
  };
}
