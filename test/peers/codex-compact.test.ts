// Compact through the whole transaction, on a Codex home made by the pinned
// codex 0.171.0 (its app-server creates logs_2.sqlite at the first scan):
// old log rows are added, then `cleanerx clean --id logs:database --id
// compact:logs --yes --json` (the real binary) deletes them and compacts
// the database. Proved: every newer row byte for byte, integrity_check,
// free pages 0, every file outside the databases byte-identical, and the
// freed bytes measured (on a tmpfs of its own when root: within 5% of what
// was removed; else explained). Then a SIGKILL at every crash point of the
// compaction, and `cleanerx recovery` settling it; a compaction that cannot
// be settled is listed as Not provable with its reason. The app's result
// screen shows the promised and the measured freed bytes.

import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { COMPACT_ITEM, LOGS_ITEM } from '../../src/adapters/codex/items.js';
import { COMPACT_CRASH_POINTS } from '../../src/engine/cleanup/compact.js';
import { listCompactions } from '../../src/engine/cleanup/compact-journal.js';
import { readDbSpace } from '../../src/engine/host/db-space.js';
import type { FreedBytes } from '../../src/engine/core/model.js';
import { buildStore, CODEX_BIN, codexHome, codexNoise, installation, rawClient, serverListing } from '../helpers/codex.js';
import { CLI, ROOT } from '../helpers/constants.js';
import { makeTempEnv, targetAgent, type TempEnv } from '../helpers/temp-env.js';
import { hashTree, treeDiff } from '../helpers/tree-hash.js';
import { KEYS, openPty } from '../helpers/app-screen.js';
import { budget } from '../helpers/budget.js';

let t: TempEnv | undefined;
let mounted: string | null = null;
afterEach(() => {
  if (mounted) spawnSync('umount', [mounted]);
  mounted = null;
  t?.cleanup();
  t = undefined;
});

beforeAll(() => {
  if (!existsSync(CLI)) expect(spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status).toBe(0);
}, budget(180_000));

const DAY = 86400;
const now = (): number => Math.floor(Date.now() / 1000);

/** A Codex home on a tmpfs of its own when root (a quiet filesystem), with the logs database Codex made and old rows in it. */
async function home(oldRows = 6000, newRows = 1500): Promise<{ t: TempEnv; db: string; env: Record<string, string> }> {
  t = makeTempEnv('cleanerx-codex-compact-');
  const h = codexHome(t);
  mkdirSync(h, { recursive: true });
  if (process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512m,mode=0700', 'tmpfs', h]).status === 0) mounted = h;
  buildStore(t, { threads: 3, seed: 11 });
  // The first scan runs Codex's app-server, which creates logs_2.sqlite as codex 0.171 lays it out.
  await codexAdapter.scan(installation(t), t.ctx, () => undefined);
  const db = join(h, 'logs_2.sqlite');
  expect(existsSync(db)).toBe(true);
  const d = new Database(db);
  const ins = d.prepare("INSERT INTO logs (ts, ts_nanos, level, target, feedback_log_body, estimated_bytes) VALUES (?, ?, 'INFO', 'test', ?, ?)");
  d.transaction(() => {
    // Codex drops rows older than 10 days when it starts; 8–9 days is older than cleanerx's 7.
    for (let i = 0; i < oldRows; i++) {
      const body = `old ${i} ${'ü→'.repeat(300 + (i % 200))}`;
      ins.run(now() - 8 * DAY - (i % 20_000), i, body, body.length);
    }
    for (let i = 0; i < newRows; i++) {
      const body = `new ${i} ${'é'.repeat(500 + (i % 300))}`;
      ins.run(now() - 3600 - i, i, body, body.length);
    }
  })();
  d.pragma('wal_checkpoint(TRUNCATE)');
  d.close();
  return { t, db, env: { ...t.env, PATH: `${dirname(CODEX_BIN)}:/usr/bin:/bin` } };
}

/** The test's newer rows, every column, as one hash (read from a copy-free read-only open after everyone closed it). */
function newerRows(db: string): { n: number; sha: string } {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const h = createHash('sha256');
    const rows = d
      .prepare("SELECT id, ts, ts_nanos, level, target, feedback_log_body, estimated_bytes FROM logs WHERE target = 'test' AND ts > ? ORDER BY id")
      .all(now() - 2 * DAY);
    for (const r of rows) h.update(JSON.stringify(r));
    return { n: rows.length, sha: h.digest('hex') };
  } finally {
    d.close();
  }
}

const oldCount = (db: string): number => {
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return (d.prepare("SELECT count(*) AS n FROM logs WHERE target = 'test' AND ts < ?").get(now() - 7 * DAY) as { n: number }).n;
  } finally {
    d.close();
  }
};

const integrity = (db: string): string => {
  const d = new Database(db, { fileMustExist: true });
  try {
    return String(d.pragma('integrity_check', { simple: true }));
  } finally {
    d.close();
  }
};

/** Everything but the databases (Codex itself rewrites them on every start) and Codex's own start-up noise. */
const outside = (t: TempEnv): Map<string, string> => {
  const h = codexHome(t);
  const all = hashTree(h, codexNoise(h));
  for (const k of [...all.keys()]) if (/\.sqlite(-wal|-shm)?$/.test(k)) all.delete(k);
  return all;
};

const cli = (env: Record<string, string>, args: string[], extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...env, ...extra }, encoding: 'utf8', timeout: budget(180_000) });

describe('Compact through the whole transaction', () => {
  it(
    'deletes the old rows, compacts (free pages 0), keeps every newer row and every other file; freed bytes measured',
    async () => {
      const { t, db, env } = await home();
      const before = newerRows(db);
      expect(before.n).toBe(1500);
      const picture = outside(t);

      // The scan offers both items; Compact says what it gives back.
      const inv = await codexAdapter.scan(installation(t), t.ctx, () => undefined);
      const compact = inv.items.find((i) => i.id === COMPACT_ITEM)!;
      expect(compact.selectable, compact.blockedReason).toBe(true);
      expect(compact.subtitle).toMatch(/logs_2\.sqlite: .* on disk, WAL .*, [\d,]+ free pages/);
      expect(inv.items.find((i) => i.id === LOGS_ITEM)?.selectable).toBe(true);
      const stateDb = inv.items.find((i) => /^protected:db:state_\d+\.sqlite$/.test(i.id));
      expect(stateDb?.subtitle).toMatch(/state database: shown, never compacted · state_\d+\.sqlite: .* on disk/);
      expect(stateDb?.selectable).toBe(false);

      // Compact alone while old rows are listed: refused before anything changes.
      const alone = cli(env, ['clean', '--agent', 'codex', '--id', COMPACT_ITEM, '--yes']);
      expect(alone.status, alone.stderr + alone.stdout).toBe(1);
      expect(alone.stdout + alone.stderr).toContain('Select the old Codex log rows too');
      expect(oldCount(db)).toBe(6000);

      const r = cli(env, ['clean', '--agent', 'codex', '--id', LOGS_ITEM, '--id', COMPACT_ITEM, '--yes', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { status: string; removedItems: number; freed: FreedBytes };
      expect(out.status).toBe('complete');
      expect(out.removedItems).toBe(2);

      expect(integrity(db)).toBe('ok');
      expect(oldCount(db)).toBe(0);
      expect(newerRows(db)).toEqual(before);
      expect(readDbSpace(db).freePages).toBe(0);
      expect(readdirSync(codexHome(t)).filter((n) => n.includes('cleanerx-compact'))).toEqual([]);
      expect(treeDiff(picture, outside(t))).toEqual([]);
      const journals = await listCompactions(t.env.CLEANERX_STATE_DIR!);
      expect(journals.map((f) => f.kind === 'entry' && f.entry.step)).toEqual(['complete']);

      // Freed bytes: promised, measured on the filesystem, explained when over 5% apart.
      const f = out.freed;
      expect(f.promisedBytes).toBeGreaterThan(0);
      expect(f.filesystems).toHaveLength(1);
      expect(f.allocatedBytes).toBeGreaterThan(2 * 1024 * 1024);
      const apart = (a: number, b: number) => Math.abs(a - b) > 0.05 * Math.max(a, b);
      if (mounted && !apart(f.freedBytes, f.allocatedBytes)) expect(f.explanations.includes('otherWrites')).toBe(false);
      if (apart(f.freedBytes, f.promisedBytes)) expect(f.explanations.length, JSON.stringify(f)).toBeGreaterThan(0);
      else expect(f.explanations).toEqual([]);
      if (mounted) expect(apart(f.freedBytes, f.allocatedBytes), JSON.stringify(f)).toBe(false);

      // The next scan offers nothing to compact.
      const next = await codexAdapter.scan(installation(t), t.ctx, () => undefined);
      expect(next.items.find((i) => i.id === COMPACT_ITEM)).toBeUndefined();
    },
    budget(300_000),
  );
});

describe('a kill at each crash point of the compaction, then cleanerx recovery', () => {
  const forward = new Set(['compact:verified', 'compact:swapping', 'compact:swap:renamed', 'compact:swapped', 'compact:complete']);
  for (const point of COMPACT_CRASH_POINTS) {
    it(
      `${point}: recovery settles it; the original or the verified copy, never a broken file`,
      async () => {
        const { t, db, env } = await home(2500, 600);
        const before = newerRows(db);
        const threads = (await codexAdapter.scan(installation(t), t.ctx, () => undefined)).sessions.map((s) => s.id).sort();
        expect(threads.length).toBeGreaterThan(0);
        const picture = outside(t);
        const r = cli(env, ['clean', '--agent', 'codex', '--id', LOGS_ITEM, '--id', COMPACT_ITEM, '--yes'], { CLEANERX_CRASH_AT: point });
        expect(r.signal, r.stderr).toBe('SIGKILL');

        const list = cli(env, ['recovery']);
        expect(list.status, list.stderr).toBe(0);
        // The compaction is settled; what is listed is the cleanup it interrupted.
        expect(list.stdout).not.toContain('compaction');
        const steps = (await listCompactions(t.env.CLEANERX_STATE_DIR!)).map((f) => f.kind === 'entry' && f.entry.step);
        expect(steps).toEqual([forward.has(point) ? 'complete' : 'rolledBack']);
        expect(integrity(db)).toBe('ok');
        expect(newerRows(db)).toEqual(before);
        expect(oldCount(db)).toBe(0);
        if (forward.has(point)) expect(readDbSpace(db).freePages).toBe(0);
        else expect(readDbSpace(db).freePages).toBeGreaterThan(0);
        expect(readdirSync(codexHome(t)).filter((n) => n.includes('cleanerx-compact'))).toEqual([]);
        expect(treeDiff(picture, outside(t))).toEqual([]);

        const op = /^([0-9a-f-]{36}) {2}Codex/m.exec(list.stdout)?.[1];
        expect(op, list.stdout).toBeDefined();
        if (forward.has(point)) expect(list.stdout).toContain('All applied');
        const done = cli(env, ['recovery', forward.has(point) ? 'accept' : 'close', op!]);
        expect(done.status, done.stderr + done.stdout).toBe(0);
        expect(done.stdout).toContain('No interrupted cleanup.');
        // Right after, before Codex runs again (#25.1): cleanerx and Codex's own App Server list every thread.
        expect((await codexAdapter.scan(installation(t), t.ctx, () => undefined)).sessions.map((s) => s.id).sort()).toEqual(threads);
        const c = await rawClient(t);
        try {
          expect((await serverListing(c)).map((x) => x.id).sort()).toEqual(threads);
        } finally {
          await c.close();
        }
      },
      budget(300_000),
    );
  }

  it(
    'a compaction recovery cannot settle is listed as Not provable with its reason, and nothing is touched',
    async () => {
      const { t, db, env } = await home(2500, 600);
      const r = cli(env, ['clean', '--agent', 'codex', '--id', LOGS_ITEM, '--id', COMPACT_ITEM, '--yes'], { CLEANERX_CRASH_AT: 'compact:copied' });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      // The database vanishes while its copy was never verified: neither may be guessed at.
      const sibling = readdirSync(codexHome(t)).find((n) => n.includes('cleanerx-compact'))!;
      expect(sibling).toBeDefined();
      rmSync(db);
      const list = cli(env, ['recovery']);
      expect(list.status, list.stderr).toBe(0);
      expect(list.stdout).toMatch(
        /compaction\n {2}recorded: A database compaction was interrupted\.\n {2}observed: Not provable — .*logs_2\.sqlite is missing and the copy .* was never verified; it is kept/,
      );
      expect(readdirSync(codexHome(t))).toContain(sibling);
      const steps = (await listCompactions(t.env.CLEANERX_STATE_DIR!)).map((f) => f.kind === 'entry' && f.entry.step);
      expect(steps).toEqual(['copied']);
    },
    budget(300_000),
  );
});

describe('the result screen (the real binary in a PTY)', () => {
  it(
    'after a cleanup says what was promised and what the disk gave back, measured',
    async () => {
      const { t, env } = await home(10, 10);
      targetAgent(t, 'codex');
      const pty = openPty({ args: [], env, cols: 110, rows: 40 });
      await pty.waitFor('Sessions (', 90_000);
      pty.press('2');
      await pty.waitForLine(/^\[ \]   /, 30_000);
      pty.press('j', KEYS.space);
      await pty.waitFor(/\d+ marked · /);
      pty.press('x');
      await pty.waitFor('Review cleanup');
      pty.type('delete');
      pty.press(KEYS.enter);
      await pty.waitFor('Cleanup complete', 120_000);
      await pty.waitFor('Disk space');
      expect(pty.text()).toMatch(/Promised [\d.]+ [kKMG]?i?B · freed [\d.]+ [kKMG]?i?B on disk \(measured; removed data took [\d.]+ [kKMG]?i?B\)/);
      pty.press(KEYS.enter);
      await pty.waitForNot('Cleanup complete');
      pty.press('q');
      expect(await pty.waitExit()).toBe(0);
    },
    budget(400_000),
  );
});
